package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
)

// NewClient returns a franz-go client for the cluster (no group, no
// topics), for admin requests and raw protocol requests.
func NewClient(bootstrap string, props kafkaconf.Props, extra ...kgo.Opt) (*kgo.Client, error) {
	opts, err := props.FranzOpts()
	if err != nil {
		return nil, err
	}
	opts = append(opts, kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	opts = append(opts, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", bootstrap, err)
	}
	return cl, nil
}

// NewAdmin returns a franz-go admin client for the cluster. The caller closes
// it with Close on the returned *kadm.Client.
func NewAdmin(bootstrap string, props kafkaconf.Props, extra ...kgo.Opt) (*kadm.Client, error) {
	cl, err := NewClient(bootstrap, props, extra...)
	if err != nil {
		return nil, err
	}
	return kadm.NewClient(cl), nil
}

// readinessProbeGroup is the group whose coordinator readiness asks for. The
// first FindCoordinator of a new cluster creates __consumer_offsets, so a
// coordinator that answers means a consumer group can form.
const readinessProbeGroup = "chaosbench-readiness-probe"

// WaitReady polls the cluster until every broker in want is registered and
// the group coordinator answers: metadata and group coordination work, which
// is what a benchmark needs. It never sleeps a fixed time: it asks again
// every 100 ms and returns as soon as both hold, or ctx ends. alive, if not
// nil, is consulted between attempts so that a broker that died during
// start-up fails fast instead of waiting out ctx.
func WaitReady(ctx context.Context, adm *kadm.Client, want []int, alive func() error) error {
	var last error
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if alive != nil {
			if err := alive(); err != nil {
				return err
			}
		}
		last = probeReady(ctx, adm, want)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ready: %w (last check: %v)", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

func probeReady(ctx context.Context, adm *kadm.Client, want []int) error {
	actx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	brokers, err := adm.ListBrokers(actx)
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	have := brokers.NodeIDs()
	for _, id := range want {
		if !slices.Contains(have, int32(id)) {
			return fmt.Errorf("broker %d not registered yet (have %v)", id, have)
		}
	}
	co := adm.FindGroupCoordinators(actx, readinessProbeGroup)
	r, ok := co[readinessProbeGroup]
	if !ok {
		return errors.New("no FindCoordinator response")
	}
	if r.Err != nil {
		return fmt.Errorf("group coordinator: %w", r.Err)
	}
	return nil
}

// describe fills the parts of Info that come from asking the cluster.
func describe(ctx context.Context, adm *kadm.Client, info *Info) error {
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	info.ClusterID = md.Cluster
	info.Controller = int(md.Controller)
	info.BrokerIDs = info.BrokerIDs[:0]
	for _, id := range md.Brokers.NodeIDs() {
		info.BrokerIDs = append(info.BrokerIDs, int(id))
	}
	slices.Sort(info.BrokerIDs)
	info.Brokers = len(info.BrokerIDs)
	// The broker's own report of its version: the API versions it
	// supports, read by franz-go ("v4.4"; "at least v4.4" for a release
	// newer than franz-go knows). A provider that knows the exact release
	// (the local one: its jars) says so in KafkaVersion; otherwise the
	// report is all there is.
	if vs, err := adm.ApiVersions(ctx); err == nil {
		for _, v := range vs.Sorted() {
			if v.Err == nil {
				info.BrokerVersion = v.VersionGuess()
				break
			}
		}
	}
	if info.KafkaVersion == "" {
		info.KafkaVersion = info.BrokerVersion
	}
	settings, err := brokerSettings(ctx, adm, info.BrokerIDs)
	if err != nil {
		return err
	}
	info.BrokerSettings = settings
	return nil
}

// brokerSettings asks a broker for the effective values of GroupSettings.
func brokerSettings(ctx context.Context, adm *kadm.Client, ids []int) (map[string]string, error) {
	if len(ids) == 0 {
		return nil, errors.New("describe broker configs: no brokers")
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx, int32(ids[0]))
	if err != nil {
		return nil, fmt.Errorf("describe broker %d configs: %w", ids[0], err)
	}
	out := map[string]string{}
	for _, rc := range rcs {
		if rc.Err != nil {
			return nil, fmt.Errorf("describe broker %s configs: %w", rc.Name, rc.Err)
		}
		for _, c := range rc.Configs {
			if slices.Contains(GroupSettings, c.Key) {
				out[c.Key] = c.MaybeValue()
			}
		}
	}
	return out, nil
}
