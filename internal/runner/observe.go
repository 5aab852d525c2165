package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/chaosbench/chaosbench/internal/history"
)

// ownership is who owns which partition, as the members' own histories
// say (assigned, revoked, lost deltas).
type ownership struct {
	owner   map[int32]string // partition -> member name (latest assignment wins)
	counts  map[string]int   // member -> partitions owned
	members map[string]bool  // members with a history
}

// readOwnership reads the current incarnations' histories. A member whose
// process is not alive owns nothing, whatever its history last said (a
// killed member never writes its revocation).
func readOwnership(histDir string, alive []string, incOf func(string) int) (ownership, error) {
	o := ownership{owner: map[int32]string{}, counts: map[string]int{}, members: map[string]bool{}}
	since := map[int32]int64{}
	for _, name := range alive {
		path := filepath.Join(histDir, history.FileName(name, incOf(name)))
		r, err := history.OpenFile(path)
		if err != nil {
			continue // not created yet
		}
		o.members[name] = true
		owned := map[int32]int64{}
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			var le *history.LineError
			if errors.As(err, &le) {
				continue // a line being written right now
			}
			if err != nil {
				r.Close()
				return o, err
			}
			switch e.Kind {
			case history.Assigned:
				for _, p := range e.Partitions {
					owned[p] = e.T
				}
			case history.Revoked, history.Lost:
				for _, p := range e.Partitions {
					delete(owned, p)
				}
			}
		}
		r.Close()
		for p, t := range owned {
			if prev, ok := since[p]; !ok || t > prev {
				if old, ok := o.owner[p]; ok {
					o.counts[old]--
				}
				o.owner[p] = name
				since[p] = t
				o.counts[name]++
			}
		}
	}
	return o, nil
}

// formed reports whether the group covers all partitions and every alive
// member has work (when there are enough partitions for that).
func (o ownership) formed(partitions int, alive []string) bool {
	if len(o.owner) != partitions {
		return false
	}
	if len(alive) <= partitions {
		for _, m := range alive {
			if o.counts[m] == 0 {
				return false
			}
		}
	}
	return true
}

// groupJoined reports whether the broker's group has every one of n
// members in a settled generation: Stable, with n members. The members'
// histories cannot say it when there are more members than partitions: a
// member given nothing may never write an assignment, and the first
// members to join can own every partition while the rest are still
// joining. Starting the traffic then would put the late joiners'
// rebalance inside the measurement (a capacity run would read the pause
// as a slower group).
func groupJoined(ctx context.Context, adm *kadm.Client, group string, consumerProtocol bool, n int) (bool, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	// The two protocols' groups are described by two requests, into two
	// types; a group the broker does not know reads as neither Stable nor
	// holding anyone.
	var state string
	var members int
	var err error
	if consumerProtocol {
		var gs kadm.DescribedConsumerGroups
		if gs, err = adm.DescribeConsumerGroups(ctx, group); err == nil {
			g := gs[group]
			state, members, err = g.State, len(g.Members), g.Err
		}
	} else {
		var gs kadm.DescribedGroups
		if gs, err = adm.DescribeGroups(ctx, group); err == nil {
			g := gs[group]
			state, members, err = g.State, len(g.Members), g.Err
		}
	}
	if err != nil {
		return false, "", err
	}
	return strings.EqualFold(state, "Stable") && members == n,
		fmt.Sprintf("the broker's group is %s with %d of %d members", state, members, n), nil
}

// lagSampler measures the group's lag: log end offsets minus committed
// offsets, over every partition of the topic.
type lagSampler struct {
	adm   *kadm.Client
	topic string
	group string
}

// lag returns the total lag and the log end offsets' sum.
func (s lagSampler) lag(ctx context.Context) (lag, end int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	ends, err := s.adm.ListEndOffsets(ctx, s.topic)
	if err != nil {
		return 0, 0, err
	}
	committed, err := s.adm.FetchOffsets(ctx, s.group)
	if err != nil && !strings.Contains(err.Error(), "GROUP_ID_NOT_FOUND") {
		return 0, 0, err
	}
	var total, sum int64
	ends.Each(func(lo kadm.ListedOffset) {
		if lo.Err != nil {
			return
		}
		sum += lo.Offset
		c, ok := committed.Lookup(s.topic, lo.Partition)
		at := int64(0)
		if ok && c.Err == nil && c.At >= 0 {
			at = c.At
		}
		if lo.Offset > at {
			total += lo.Offset - at
		}
	})
	return total, sum, nil
}
