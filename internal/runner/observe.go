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

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
)

// ownership is who owns which partition: as the members' own histories
// say (assigned, revoked, lost deltas: readOwnership), or as the group's
// coordinator holds it (coordinatorOwnership).
type ownership struct {
	owner   map[int32]string // partition -> member name (latest assignment wins)
	counts  map[string]int   // member -> partitions owned
	members map[string]bool  // members with a history, or in the coordinator's group
}

func newOwnership() ownership {
	return ownership{owner: map[int32]string{}, counts: map[string]int{}, members: map[string]bool{}}
}

// readOwnership reads the current incarnations' histories. A member whose
// process is not alive owns nothing, whatever its history last said (a
// killed member never writes its revocation).
func readOwnership(histDir string, alive []string, incOf func(string) int) (ownership, error) {
	o := newOwnership()
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

// coordinatorOwnership is who owns which partition of topic as the
// group's coordinator holds it (cluster.GroupAssignment), and the group's
// state: what the driver knows without reading any member's files, which
// may be on other hosts. A member is known by its client id,
// <name>.<inc>: an incarnation other than the member's current one, or
// whose process is not alive, owns nothing (a killed member stays in the
// coordinator's group until its session times out). A classic group
// shows its assignment only while Stable: in a rebalance nobody owns
// anything, as the members' own histories say of an eager one.
func coordinatorOwnership(ctx context.Context, adm *kadm.Client, group, topic string, consumerProtocol bool, alive []string, incOf func(string) int) (ownership, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	state, members, err := cluster.GroupAssignment(ctx, adm, group, topic, consumerProtocol)
	if err != nil {
		return newOwnership(), "", err
	}
	return ownershipOf(members, alive, incOf), state, nil
}

// ownershipOf is the ownership the coordinator's members give: of the
// running members' current incarnations, known by their client ids.
func ownershipOf(members []cluster.GroupMember, alive []string, incOf func(string) int) ownership {
	o := newOwnership()
	current := map[string]string{}
	for _, name := range alive {
		current[fmt.Sprintf("%s.%d", name, incOf(name))] = name
	}
	for _, m := range members {
		name, ok := current[m.ClientID]
		if !ok {
			continue
		}
		o.members[name] = true
		for _, p := range m.Partitions {
			if old, ok := o.owner[p]; ok {
				o.counts[old]--
			}
			o.owner[p] = name
			o.counts[name]++
		}
	}
	return o
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

// formedStable reports whether a group, as its coordinator holds it (o
// by coordinatorOwnership, in state), has formed: Stable, every running
// member in it, and formed as the members' histories would say it.
func (o ownership) formedStable(state string, partitions int, alive []string) bool {
	if !strings.EqualFold(state, "Stable") || len(o.members) != len(alive) {
		return false
	}
	for _, m := range alive {
		if !o.members[m] {
			return false
		}
	}
	return o.formed(partitions, alive)
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
	state, members, err := cluster.GroupState(ctx, adm, group, consumerProtocol)
	if err != nil {
		return false, "", err
	}
	return strings.EqualFold(state, "Stable") && members == n,
		fmt.Sprintf("the broker's group is %s with %d of %d members", state, members, n), nil
}

// lag is the group's lag on the cell's topic, asked with a bound of 3 s:
// the drain and the progress line ask again every second.
func (c *cellRun) lag(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return cluster.GroupLag(ctx, c.adm, c.group, c.topic)
}
