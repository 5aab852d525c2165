package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SetGroupConfigs sets a group's configs (KIP-848: a consumer-protocol
// group's session timeout and heartbeat interval, by their group config
// names such as consumer.session.timeout.ms) with IncrementalAlterConfigs
// of the GROUP resource. The group need not exist yet: its members are
// told the heartbeat interval from their first heartbeat, and a member
// already in the group from its next one. The broker refuses a value
// outside its group.consumer.min.* and group.consumer.max.* bounds, or a
// session timeout not above the heartbeat interval, and then keeps what
// the group had; the error is the broker's (INVALID_CONFIG) with its
// message. A classic group's timings are its members' own: these configs
// do not apply to it. Which configs a group gets is the member's contract
// (vocab.ConsumerConfig.Settings, those held in the group), not this
// package's.
func SetGroupConfigs(ctx context.Context, cl *kgo.Client, group string, configs map[string]string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name = name
		cfg.Op = kmsg.IncrementalAlterConfigOpSet
		cfg.Value = kmsg.StringPtr(configs[name])
		res.Configs = append(res.Configs, cfg)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Resources {
		if e := kerr.ErrorForCode(r.ErrorCode); e != nil {
			err = fmt.Errorf("%w: %s", e, derefString(r.ErrorMessage))
		}
	}
	return err
}

// GroupConfigs reads back a group's effective configs of those names
// (DescribeConfigs of the GROUP resource): the group's own config where
// it has one, else the broker's default, which is what the coordinator
// applies to the group's members. A config the broker does not report is
// absent; the resource's own error code is not read, so a group the
// broker cannot describe reads as no configs, not as an error.
func GroupConfigs(ctx context.Context, cl *kgo.Client, group string, names []string) (map[string]string, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	res.ConfigNames = names
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range resp.Resources {
		for _, cfg := range r.Configs {
			if cfg.Value != nil {
				out[cfg.Name] = *cfg.Value
			}
		}
	}
	return out, nil
}

// derefString is *s, or "" when s is nil (a message the broker left out).
func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
