package cluster_test

import (
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

// groupClients returns a client of c for raw requests and its admin
// client, both closed at cleanup.
func groupClients(t *testing.T, c cluster.Cluster) (*kgo.Client, *kadm.Client) {
	t.Helper()
	cl, err := cluster.NewClient(c.Bootstrap(), c.Props())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl, kadm.NewClient(cl)
}

// The group configs (KIP-848) of a consumer-protocol group's timings.
const (
	groupSessionTimeout    = "consumer.session.timeout.ms"
	groupHeartbeatInterval = "consumer.heartbeat.interval.ms"
)

// setTimings sets a group's timings as group configs.
func setTimings(ctx context.Context, cl *kgo.Client, group string, session, heartbeat time.Duration) error {
	return cluster.SetGroupConfigs(ctx, cl, group, map[string]string{
		groupSessionTimeout:    strconv.FormatInt(session.Milliseconds(), 10),
		groupHeartbeatInterval: strconv.FormatInt(heartbeat.Milliseconds(), 10),
	})
}

// wantTimings checks what GroupConfigs reads back of group's timings.
func wantTimings(ctx context.Context, t *testing.T, cl *kgo.Client, group, session, heartbeat string) {
	t.Helper()
	got, err := cluster.GroupConfigs(ctx, cl, group, []string{groupSessionTimeout, groupHeartbeatInterval})
	if err != nil {
		t.Fatalf("GroupConfigs: %v", err)
	}
	if got[groupSessionTimeout] != session || got[groupHeartbeatInterval] != heartbeat || len(got) != 2 {
		t.Errorf("GroupConfigs = %v, want %s %s and %s %s", got,
			groupSessionTimeout, session, groupHeartbeatInterval, heartbeat)
	}
}

// consumerMember is a consumer-protocol member that speaks for itself,
// by ConsumerGroupHeartbeat: each answer carries the heartbeat interval
// the coordinator gives the member, which is how the group's timings
// reach its members.
type consumerMember struct {
	cl  *kgo.Client
	req *kmsg.ConsumerGroupHeartbeatRequest
}

// joinConsumerGroup joins group as a member subscribed to topic and
// returns it with the heartbeat interval of the first answer.
func joinConsumerGroup(ctx context.Context, t *testing.T, cl *kgo.Client, group, topic string) (*consumerMember, int32) {
	t.Helper()
	var id [16]byte
	_, _ = crand.Read(id[:])
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group = group
	req.MemberID = base64.RawURLEncoding.EncodeToString(id[:]) // the client names itself (KIP-1082)
	req.RebalanceTimeoutMillis = 10_000
	req.SubscribedTopicNames = []string{topic}
	req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{} // owns nothing yet: empty, not null
	m := &consumerMember{cl: cl, req: req}
	return m, m.heartbeat(ctx, t)
}

// heartbeat sends the member's next heartbeat (only its epoch: nothing
// changed) and returns the heartbeat interval of the answer.
func (m *consumerMember) heartbeat(ctx context.Context, t *testing.T) int32 {
	t.Helper()
	resp, err := m.req.RequestWith(ctx, m.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		t.Fatalf("ConsumerGroupHeartbeat of %s (epoch %d): %v", m.req.Group, m.req.MemberEpoch, err)
	}
	m.req.MemberEpoch = resp.MemberEpoch
	m.req.RebalanceTimeoutMillis, m.req.SubscribedTopicNames, m.req.Topics = -1, nil, nil
	return resp.HeartbeatIntervalMillis
}

// leave leaves the group (epoch -1).
func (m *consumerMember) leave(ctx context.Context, t *testing.T) {
	m.req.MemberEpoch = -1
	m.heartbeat(ctx, t)
}

// TestGroupTimings sets a consumer-protocol group's timings and reads them
// back, as the driver does: before the group exists, and again with a
// member in it. The coordinator tells the member the interval set, and a
// value outside the broker's bounds leaves the group as it was.
func TestGroupTimings(t *testing.T) {
	c := kafkatest.Shared(t)
	cl, _ := groupClients(t, c)
	topic, group := kafkatest.Name(t, "topic"), kafkatest.Name(t, "group")
	createTopic(t, c, topic, 2, 1, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Nothing set: the broker's defaults, the test cluster's settings.
	wantTimings(ctx, t, cl, group, kafkatest.TestSettings["group.consumer.session.timeout.ms"],
		kafkatest.TestSettings["group.consumer.heartbeat.interval.ms"])

	if err := setTimings(ctx, cl, group, 8*time.Second, time.Second); err != nil {
		t.Fatalf("SetGroupConfigs before the group exists: %v", err)
	}
	wantTimings(ctx, t, cl, group, "8000", "1000")
	m, interval := joinConsumerGroup(ctx, t, cl, group, topic)
	defer m.leave(ctx, t)
	if interval != 1000 {
		t.Errorf("a joining member is told to heartbeat every %d ms, want the group's 1000", interval)
	}

	if err := setTimings(ctx, cl, group, 7*time.Second, 700*time.Millisecond); err != nil {
		t.Fatalf("SetGroupConfigs with a member in the group: %v", err)
	}
	wantTimings(ctx, t, cl, group, "7000", "700")
	if interval := m.heartbeat(ctx, t); interval != 700 {
		t.Errorf("the member is told to heartbeat every %d ms, want the group's new 700", interval)
	}

	// Below group.consumer.min.session.timeout.ms: refused as a whole (the
	// heartbeat interval, within bounds, is not applied either).
	err := setTimings(ctx, cl, group, 2*time.Second, 2*time.Second)
	if !errors.Is(err, kerr.InvalidConfig) {
		t.Errorf("SetGroupConfigs with a session timeout below the broker's minimum (%s ms): err %v, want INVALID_CONFIG",
			kafkatest.TestSettings["group.consumer.min.session.timeout.ms"], err)
	}
	wantTimings(ctx, t, cl, group, "7000", "700")
}

// TestGroupState reads a classic group and a consumer-protocol group, one
// member each, as Stable with one member, each by its own protocol's
// request; before it exists, or asked of the other protocol's request, a
// group is GROUP_ID_NOT_FOUND.
func TestGroupState(t *testing.T) {
	c := kafkatest.Shared(t)
	_, adm := groupClients(t, c)
	topic := kafkatest.Name(t, "topic")
	createTopic(t, c, topic, 2, 1, nil)
	for _, tc := range []struct {
		name             string
		consumerProtocol bool
		opts             []kgo.Opt
	}{
		{"classic", false, nil},
		{"consumer-protocol", true, []kgo.Opt{kgo.Balancers(kgo.RangeBalancer()), kgo.ServerSideBalancer()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			group := kafkatest.Name(t, "group")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, _, err := cluster.GroupState(ctx, adm, group, tc.consumerProtocol); !errors.Is(err, kerr.GroupIDNotFound) {
				t.Errorf("before anyone joined: err %v, want GROUP_ID_NOT_FOUND", err)
			}
			member, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Bootstrap()),
				kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer member.Close()
			deadline := time.Now().Add(30 * time.Second)
			for {
				state, n, err := cluster.GroupState(ctx, adm, group, tc.consumerProtocol)
				if err == nil && state == "Stable" && n == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the group is %q with %d member(s) (err %v) after 30 s, want Stable with 1", state, n, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if _, _, err := cluster.GroupState(ctx, adm, group, !tc.consumerProtocol); !errors.Is(err, kerr.GroupIDNotFound) {
				t.Errorf("asked of the other protocol's request: err %v, want GROUP_ID_NOT_FOUND", err)
			}
		})
	}
}

// TestGroupLag: a group that never committed lags by every record;
// committed at the log end, by none; then by what was produced since.
func TestGroupLag(t *testing.T) {
	c := kafkatest.Shared(t)
	_, adm := groupClients(t, c)
	topic, group := kafkatest.Name(t, "topic"), kafkatest.Name(t, "group")
	createTopic(t, c, topic, 3, 1, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lag := func(want int64, when string) {
		t.Helper()
		got, err := cluster.GroupLag(ctx, adm, group, topic)
		if err != nil || got != want {
			t.Errorf("%s: GroupLag = %d, %v; want %d", when, got, err, want)
		}
	}

	produceFranz(t, c.Bootstrap(), topic, 0, 30)
	lag(30, "no commits")
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if err := adm.CommitAllOffsets(ctx, group, ends.Offsets()); err != nil {
		t.Fatal(err)
	}
	lag(0, "committed at the log end")
	produceFranz(t, c.Bootstrap(), topic, 30, 40)
	lag(10, "10 records since")
}
