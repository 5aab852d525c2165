package assign

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/history"
)

// hist builds a synthetic history, one event per call, 1 ms apart.
type hist struct {
	t   int64
	evs []history.Event
}

func (h *hist) next() int64 { h.t += 1e6; return h.t }

// ids are the member ids the coordinator gave m1, m2, m3.
var ids = map[string]string{"m1": "consumer-a", "m2": "consumer-b", "m3": "consumer-c"}

func (h *hist) delta(kind history.Kind, proc string, gen int32, ps ...int32) *hist {
	h.evs = append(h.evs, history.Event{Kind: kind, T: h.next(), Proc: proc, Topic: "t", Partitions: ps, Gen: gen, MemberID: ids[proc]})
	return h
}
func (h *hist) assigned(proc string, gen int32, ps ...int32) *hist {
	return h.delta(history.Assigned, proc, gen, ps...)
}
func (h *hist) revoked(proc string, gen int32, ps ...int32) *hist {
	return h.delta(history.Revoked, proc, gen, ps...)
}
func (h *hist) chaos(action, target string) *hist {
	h.evs = append(h.evs, history.Event{Kind: history.Chaos, T: h.next(), Proc: "chaos", Action: action, Target: target})
	return h
}
func (h *hist) started(proc string) *hist {
	h.evs = append(h.evs, history.Event{Kind: history.Member, T: h.next(), Proc: proc, State: history.StateStarted})
	return h
}

func (h *hist) check(t *testing.T, strategy string, partitions int) *Report {
	t.Helper()
	r, err := CheckHistory(strategy, "t", partitions, slices.Values(pointers(h.evs)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func pointers(evs []history.Event) []*history.Event {
	out := make([]*history.Event, len(evs))
	for i := range evs {
		out[i] = &evs[i]
	}
	return out
}

func kinds(r *Report) string {
	var k []string
	for _, f := range r.Findings {
		k = append(k, f.Kind)
	}
	return strings.Join(k, ",")
}

// expect asserts the report's findings (kinds, in order) and settled
// counts.
func expect(t *testing.T, r *Report, wantKinds string, settled, unsettled int) {
	t.Helper()
	if got := kinds(r); got != wantKinds {
		t.Errorf("findings %q, want %q", got, wantKinds)
		for _, f := range r.Findings {
			t.Logf("  %+v", f)
		}
	}
	if r.Settled != settled || r.Unsettled != unsettled {
		t.Errorf("settled %d, unsettled %d; want %d, %d", r.Settled, r.Unsettled, settled, unsettled)
	}
}

// rangeRun is an eager range group: m1..m3 on 7 partitions, then m3 is
// killed and m1, m2 rebalance. second is what m1 and m2 get in gen 2.
func rangeRun(first, second [2][]int32) *hist {
	h := &hist{}
	h.started("m1").started("m2").started("m3")
	h.assigned("m1", 1, first[0]...).assigned("m2", 1, first[1]...).assigned("m3", 1, 5, 6)
	h.chaos("kill", "m3")
	h.revoked("m1", 1, first[0]...).revoked("m2", 1, first[1]...)
	h.assigned("m1", 2, second[0]...).assigned("m2", 2, second[1]...)
	return h
}

func TestOracleRange(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		r := rangeRun([2][]int32{{0, 1, 2}, {3, 4}}, [2][]int32{{0, 1, 2, 3}, {4, 5, 6}}).check(t, "range", 7)
		expect(t, r, "", 2, 0)
	})
	t.Run("wrong split", func(t *testing.T) {
		r := rangeRun([2][]int32{{0, 1, 2}, {3, 4}}, [2][]int32{{0, 1, 2}, {3, 4, 5, 6}}).check(t, "range", 7)
		expect(t, r, "differs_from_model", 2, 0)
		f := r.Findings[0]
		if f.Gen != 2 || !slices.Equal(f.Members, []string{"m1", "m2"}) || !slices.Equal(f.Partitions, []int32{3}) {
			t.Errorf("finding %+v: want gen 2, members m1 m2, partition 3", f)
		}
	})
	t.Run("first generation wrong", func(t *testing.T) {
		// Roundrobin's answer where range was configured.
		r := rangeRun([2][]int32{{0, 3}, {1, 4}}, [2][]int32{{0, 1, 2, 3}, {4, 5, 6}})
		// m1, m2 and m3 as roundrobin would have it for 7 partitions.
		r.evs[3].Partitions = []int32{0, 3, 6}
		r.evs[4].Partitions = []int32{1, 4}
		r.evs[5].Partitions = []int32{2, 5}
		r.evs[7].Partitions = []int32{0, 3, 6}
		rep := r.check(t, "range", 7)
		expect(t, rep, "differs_from_model", 2, 0)
		if rep.Findings[0].Gen != 1 || len(rep.Findings[0].Members) != 3 {
			t.Errorf("finding %+v: want gen 1, all three members", rep.Findings[0])
		}
	})
	t.Run("handed over while owned", func(t *testing.T) {
		h := rangeRun([2][]int32{{0, 1, 2}, {3, 4}}, [2][]int32{{0, 1, 2, 3}, {4, 5, 6}})
		// m2 gets 0 in gen 1 although m1 owns it: a finding, and the
		// state with two owners is unsettled, not a second finding.
		h.evs[4].Partitions = []int32{0, 3, 4}
		h.evs[8].Partitions = []int32{0, 3, 4} // m2's revoke-all
		r := h.check(t, "range", 7)
		expect(t, r, "handed_over_while_owned", 1, 1)
		if f := r.Findings[0]; !slices.Equal(f.Members, []string{"m2", "m1"}) || !slices.Equal(f.Partitions, []int32{0}) {
			t.Errorf("finding %+v: want members m2 m1, partition 0", f)
		}
	})
}

// A member stopped gracefully gives everything up and leaves the group
// when its client closes; the group rebalances without it before its
// process has exited (a JVM takes a while). It is no longer a member
// then: the settled point before its exit is the two-member assignment.
func TestOracleStoppedMemberLeftBeforeExit(t *testing.T) {
	h := &hist{}
	h.started("m1").started("m2").started("m3")
	h.assigned("m1", 1, 0, 1, 2).assigned("m2", 1, 3, 4).assigned("m3", 1, 5, 6)
	h.chaos("stop", "m3")
	h.evs = append(h.evs, history.Event{Kind: history.Member, T: h.next(), Proc: "m3", State: history.StateStopping})
	h.revoked("m3", 1, 5, 6)
	h.revoked("m1", 1, 0, 1, 2).revoked("m2", 1, 3, 4)
	h.assigned("m1", 2, 0, 1, 2, 3).assigned("m2", 2, 4, 5, 6)
	h.evs = append(h.evs, history.Event{Kind: history.Member, T: h.next(), Proc: "chaos", State: history.StateExited, Target: "m3"})
	expect(t, h.check(t, "range", 7), "", 2, 0)
}

func TestOracleRoundRobin(t *testing.T) {
	h := &hist{}
	h.started("m2").started("m1")
	h.assigned("m1", 1, 0, 2, 4).assigned("m2", 1, 1, 3)
	expect(t, h.check(t, "roundrobin", 5), "", 1, 0)

	h = &hist{}
	h.started("m2").started("m1")
	h.assigned("m1", 1, 0, 1, 2).assigned("m2", 1, 3, 4)
	expect(t, h.check(t, "roundrobin", 5), "differs_from_model", 1, 0)
}

// stickyRun: m1, m2 own 0-2 and 3-5; m3 joins; eager rebalance to third.
func stickyRun(third [3][]int32) *hist {
	h := &hist{}
	h.started("m1").started("m2")
	h.assigned("m1", 1, 0, 1, 2).assigned("m2", 1, 3, 4, 5)
	h.started("m3")
	h.revoked("m1", 1, 0, 1, 2).revoked("m2", 1, 3, 4, 5)
	h.assigned("m1", 2, third[0]...).assigned("m2", 2, third[1]...).assigned("m3", 2, third[2]...)
	return h
}

func TestOracleSticky(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		expect(t, stickyRun([3][]int32{{0, 1}, {3, 4}, {2, 5}}).check(t, "sticky", 6), "", 2, 0)
	})
	t.Run("not sticky", func(t *testing.T) {
		// Balanced, but 3 partitions moved where 2 had to.
		r := stickyRun([3][]int32{{0, 1}, {2, 3}, {4, 5}}).check(t, "sticky", 6)
		expect(t, r, "not_sticky", 2, 0)
		if f := r.Findings[0]; !slices.Equal(f.Partitions, []int32{2, 4, 5}) || f.Gen != 2 {
			t.Errorf("finding %+v: want partitions 2 4 5, gen 2", f)
		}
	})
	t.Run("unbalanced", func(t *testing.T) {
		r := stickyRun([3][]int32{{0, 1, 2}, {3, 4, 5}, {}}).check(t, "sticky", 6)
		expect(t, r, "unbalanced", 2, 0)
		if f := r.Findings[0]; !slices.Equal(f.Members, []string{"m1", "m2", "m3"}) {
			t.Errorf("finding %+v: want m1 m2 (3 each) then m3 (0)", f)
		}
	})
}

func TestOracleCooperative(t *testing.T) {
	base := func() *hist {
		h := &hist{}
		h.started("m1")
		h.assigned("m1", 1, 0, 1, 2, 3)
		h.started("m2")
		return h
	}
	t.Run("two phases", func(t *testing.T) {
		h := base()
		h.revoked("m1", 2, 2, 3).assigned("m2", 2)
		h.assigned("m1", 3).assigned("m2", 3, 2, 3)
		expect(t, h.check(t, "cooperative-sticky", 4), "", 2, 0)
	})
	t.Run("assigned before revoked", func(t *testing.T) {
		h := base()
		h.assigned("m2", 2, 2, 3).revoked("m1", 2, 2, 3)
		r := h.check(t, "cooperative-sticky", 4)
		expect(t, r, "handed_over_while_owned", 2, 0)
		if f := r.Findings[0]; !slices.Equal(f.Partitions, []int32{2, 3}) || !slices.Equal(f.Members, []string{"m2", "m1"}) {
			t.Errorf("finding %+v", f)
		}
	})
	t.Run("paused owner", func(t *testing.T) {
		// m1 is paused: the group gives its partitions away before m1 can
		// revoke them. Not the assignor's fault.
		h := base()
		h.chaos("pause", "m1")
		h.assigned("m2", 2, 0, 1, 2, 3)
		h.chaos("resume", "m1")
		h.delta(history.Lost, "m1", 1, 0, 1, 2, 3)
		h.revoked("m2", 3, 2, 3).assigned("m1", 4, 2, 3)
		expect(t, h.check(t, "cooperative-sticky", 4), "", 2, 1)
	})
	t.Run("killed owner", func(t *testing.T) {
		h := base()
		h.chaos("kill", "m1")
		h.assigned("m2", 2, 0, 1, 2, 3)
		expect(t, h.check(t, "consumer-uniform", 4), "", 2, 0)
	})
}

func ExampleCheckHistory() {
	evs := []history.Event{
		{Kind: history.Assigned, T: 1, Proc: "m1", Topic: "t", Partitions: []int32{0, 1}, Gen: 1, MemberID: "a"},
		{Kind: history.Assigned, T: 2, Proc: "m2", Topic: "t", Partitions: []int32{2, 3}, Gen: 1, MemberID: "b"},
	}
	r, _ := CheckHistory("roundrobin", "t", 4, slices.Values(pointers(evs)))
	for _, f := range r.Findings {
		fmt.Println(f.Kind, f.Members, f.Partitions)
	}
	// Output:
	// differs_from_model [m1 m2] [1 2]
}
