package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// CreateTopic creates topic with the given partitions, replication and
// topic configs (nil for none) and waits until every partition has a
// leader. A topic that already exists is fine if it has that many
// partitions; otherwise it is an error (the workload's partitioning would
// not be what it says).
func CreateTopic(ctx context.Context, adm *kadm.Client, topic string, partitions int32, replication int16, configs map[string]*string) error {
	resp, err := adm.CreateTopic(ctx, partitions, replication, configs, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	for {
		md, err := adm.Metadata(ctx, topic)
		if err == nil {
			if td, ok := md.Topics[topic]; ok && td.Err == nil {
				if n := int32(len(td.Partitions)); n != partitions && n > 0 {
					return fmt.Errorf("topic %s already exists and has %d partitions; the workload says %d: delete it or use another topic name", topic, n, partitions)
				}
				ready := len(td.Partitions) == int(partitions)
				for _, p := range td.Partitions {
					ready = ready && p.Leader >= 0
				}
				if ready {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("topic %s: partition leaders not elected: %w", topic, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
