package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// GroupState describes a group as its coordinator holds it: its state
// ("Stable" once every member has its assignment, whichever the protocol)
// and how many members it has. The two protocols' groups are described by
// two requests (DescribeGroups for a classic group, ConsumerGroupDescribe
// for a consumer-protocol one, as consumerProtocol says), into two types;
// GroupState reads both in one shape. A group the broker does not know,
// or asked of the other protocol's request, is the broker's error
// (GROUP_ID_NOT_FOUND).
func GroupState(ctx context.Context, adm *kadm.Client, group string, consumerProtocol bool) (state string, members int, err error) {
	if consumerProtocol {
		gs, err := adm.DescribeConsumerGroups(ctx, group)
		if err != nil {
			return "", 0, err
		}
		g := gs[group]
		if g.Err != nil {
			return "", 0, g.Err
		}
		return g.State, len(g.Members), nil
	}
	gs, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		return "", 0, err
	}
	g := gs[group]
	if g.Err != nil {
		return "", 0, g.Err
	}
	return g.State, len(g.Members), nil
}

// GroupLag is a group's lag on topic: over every partition, the log end
// offset minus the group's committed offset. A partition the group has
// committed nothing on lags by its whole log, and so does every partition
// of a group the broker does not know (no offsets, or GROUP_ID_NOT_FOUND);
// a partition whose end offset the broker could not list counts for
// nothing.
func GroupLag(ctx context.Context, adm *kadm.Client, group, topic string) (int64, error) {
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, err
	}
	committed, err := adm.FetchOffsets(ctx, group)
	if err != nil && !strings.Contains(err.Error(), "GROUP_ID_NOT_FOUND") {
		return 0, err
	}
	var lag int64
	ends.Each(func(lo kadm.ListedOffset) {
		if lo.Err != nil {
			return
		}
		c, ok := committed.Lookup(topic, lo.Partition)
		at := int64(0)
		if ok && c.Err == nil && c.At >= 0 {
			at = c.At
		}
		if lo.Offset > at {
			lag += lo.Offset - at
		}
	})
	return lag, nil
}

// PartitionLags is a group's lag on each partition of topic, indexed by
// partition, as KEDA's Kafka scaler reads it: the log end offset minus the
// group's committed offset, a partition the group has committed nothing on
// lagging by its whole log (a group of members that start from the
// earliest offset), and never below 0. Unlike GroupLag it fails when the
// end offset of any partition cannot be listed: the scaler then makes no
// decision rather than one on part of the lag.
func PartitionLags(ctx context.Context, adm *kadm.Client, group, topic string) ([]int64, error) {
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	committed, err := adm.FetchOffsets(ctx, group)
	if err != nil && !strings.Contains(err.Error(), "GROUP_ID_NOT_FOUND") {
		return nil, err
	}
	var perr error
	n := 0
	ends.Each(func(lo kadm.ListedOffset) {
		if lo.Err != nil && perr == nil {
			perr = fmt.Errorf("partition %d: %w", lo.Partition, lo.Err)
		}
		n = max(n, int(lo.Partition)+1)
	})
	if perr != nil {
		return nil, perr
	}
	lags := make([]int64, n)
	ends.Each(func(lo kadm.ListedOffset) {
		c, ok := committed.Lookup(topic, lo.Partition)
		at := int64(0)
		if ok && c.Err == nil && c.At >= 0 {
			at = c.At
		}
		lags[lo.Partition] = max(lo.Offset-at, 0)
	})
	return lags, nil
}

// GroupMember is one member of a consumer group as its coordinator holds
// it: the client id it gave (a chaosbench member's is <name>.<inc>) and
// the partitions of one topic assigned to it, in order.
type GroupMember struct {
	ClientID   string
	Partitions []int32
}

// GroupAssignment describes a group as its coordinator holds it: its
// state (as GroupState) and its members with their partitions of topic,
// on either protocol. A classic group's coordinator gives the members'
// assignment only while the group is Stable: in a rebalance the members
// are listed with none, as the leader's new assignment is not yet theirs.
// A consumer-protocol group's is each member's current assignment, the
// one it has reconciled, whatever the group's state: the coordinator
// gives a partition to its next owner only once the last one has
// released it.
func GroupAssignment(ctx context.Context, adm *kadm.Client, group, topic string, consumerProtocol bool) (state string, members []GroupMember, err error) {
	if consumerProtocol {
		gs, err := adm.DescribeConsumerGroups(ctx, group)
		if err != nil {
			return "", nil, err
		}
		g := gs[group]
		if g.Err != nil {
			return "", nil, g.Err
		}
		for _, m := range g.Members {
			gm := GroupMember{ClientID: m.ClientID}
			for p := range m.Assignment[topic] {
				gm.Partitions = append(gm.Partitions, p)
			}
			slices.Sort(gm.Partitions)
			members = append(members, gm)
		}
		return g.State, members, nil
	}
	gs, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		return "", nil, err
	}
	g := gs[group]
	if g.Err != nil {
		return "", nil, g.Err
	}
	for _, m := range g.Members {
		gm := GroupMember{ClientID: m.ClientID}
		if a, ok := m.Assigned.AsConsumer(); ok && strings.EqualFold(g.State, "Stable") {
			for _, t := range a.Topics {
				if t.Topic == topic {
					gm.Partitions = append(gm.Partitions, t.Partitions...)
				}
			}
			slices.Sort(gm.Partitions)
		}
		members = append(members, gm)
	}
	return g.State, members, nil
}
