package assign

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The live oracle: CheckHistory replays the assigned, revoked and lost
// events of a run's members and checks what the group really did against
// what its strategy must do.
//
// It follows each member incarnation's partitions (the events are deltas;
// under eager protocols a rebalance is revoke-everything then assign the
// new set). An incarnation owns nothing once it is dead: killed by a chaos
// step, seen exited by the driver, or replaced by its next incarnation.
//
// Two kinds of check:
//
//   - At every assigned event: a partition must not be handed to a member
//     while another live member still owns it (the old owner revokes
//     first, under every protocol). An owner that a chaos step paused,
//     stalled or stopped since it got the partition is exempt: the group
//     may legitimately give its partitions away (that overlap is the
//     zombie checker's business).
//   - At every settled point: the state just before each disruption (a
//     chaos step or a member starting, stopping or exiting) and at the end
//     of the history, when every partition has exactly one live owner. The
//     state is checked against the strategy: range and roundrobin exactly
//     against the model (members sorted by member id), the others against
//     their balance rule; sticky and cooperative-sticky also against the
//     fewest moves since the previous settled point. A settled point where
//     some partition has no owner (or two) is counted as unsettled, not as
//     a finding: the group was still moving.
//
// Exact checks need every member of the group to be visible: members must
// write an assigned event (possibly with no partitions) with their
// member_id whenever they join a generation.

// Finding is a disagreement between a run and its strategy.
type Finding struct {
	// Kind is one of: handed_over_while_owned, differs_from_model,
	// unbalanced, not_sticky.
	Kind string `json:"kind"`
	// T is when it was seen (the event's time, or the settled point's).
	T int64 `json:"t"`
	// Gen is the group generation (classic) or the highest member epoch
	// (consumer protocol) of the state involved.
	Gen int32 `json:"gen"`
	// Members are the member names (proc) involved.
	Members []string `json:"members"`
	// Partitions are the partitions involved.
	Partitions []int32 `json:"partitions"`
	Detail     string  `json:"detail"`
}

// Report is the oracle's verdict.
type Report struct {
	Strategy string `json:"strategy"`
	Topic    string `json:"topic"`
	// Settled is how many settled points were checked; Unsettled how many
	// were skipped because partitions were unowned or doubly owned.
	Settled   int       `json:"settled"`
	Unsettled int       `json:"unsettled"`
	Findings  []Finding `json:"findings"`
}

// Valid reports whether the run behaved as its strategy must.
func (r *Report) Valid() bool { return len(r.Findings) == 0 }

// CheckHistory checks a run's history against a strategy (a name from
// Names) for one topic, which starts with the given number of partitions
// (a chaos add_partitions step with a "partitions" parameter raises it).
// events is the merged history, in time order (history.Merger); an event
// is not kept after the iteration step that yields it.
func CheckHistory(strategy, topic string, partitions int, events iter.Seq[*history.Event]) (*Report, error) {
	a, err := Lookup(strategy)
	if err != nil {
		return nil, err
	}
	if partitions < 0 || partitions > history.MaxPartitions {
		return nil, fmt.Errorf("%d partitions: expected 0 to %d, as a history's partition numbers are", partitions, history.MaxPartitions)
	}
	o := &oracle{
		assignor: a,
		topic:    topic,
		count:    int32(partitions),
		members:  map[string]*incarnation{},
		latest:   map[string]int{},
		byProc:   map[string][]*incarnation{},
		report:   &Report{Strategy: strategy, Topic: topic},
	}
	for e := range events {
		o.add(e)
	}
	o.settle(o.lastT)
	sort.SliceStable(o.report.Findings, func(i, j int) bool { return o.report.Findings[i].T < o.report.Findings[j].T })
	return o.report, nil
}

type incarnation struct {
	proc     string
	inc      int
	memberID string
	gen      int32
	owned    map[int32]bool
	disturb  int64 // last chaos pause/slow/stop/kill on it
	gotAt    map[int32]int64
	dead     bool
	stopping bool // wrote stopping: it is closing, and leaves the group
	joined   bool // wrote an assigned event
	visibleT int64
}

func (in *incarnation) name() string { return fmt.Sprintf("%s.%d", in.proc, in.inc) }

type oracle struct {
	assignor Assignor
	topic    string
	count    int32
	members  map[string]*incarnation // proc.inc -> incarnation
	latest   map[string]int          // proc -> latest incarnation seen
	// byProc lists each process's incarnations seen, so that a newer one
	// ends those it knows of, not every number below it.
	byProc  map[string][]*incarnation
	report  *Report
	lastT   int64
	changed bool // the state changed since the last settled point
	prev    map[int32]string
	prevOK  bool
}

func key(proc string, inc int) string { return fmt.Sprintf("%s.%d", proc, inc) }

func (o *oracle) member(proc string, inc int) *incarnation {
	k := key(proc, inc)
	in := o.members[k]
	if in == nil {
		in = &incarnation{proc: proc, inc: inc, owned: map[int32]bool{}, gotAt: map[int32]int64{}}
		o.members[k] = in
		o.byProc[proc] = append(o.byProc[proc], in)
	}
	if last, ok := o.latest[proc]; !ok || inc > last {
		// A newer incarnation: the older ones are dead.
		for _, old := range o.byProc[proc] {
			if old.inc < inc {
				o.kill(old)
			}
		}
		o.latest[proc] = inc
	}
	return in
}

func (o *oracle) kill(in *incarnation) {
	if !in.dead {
		in.dead = true
		if len(in.owned) > 0 {
			o.changed = true
		}
		in.owned = map[int32]bool{}
	}
}

func (o *oracle) add(e *history.Event) {
	o.lastT = e.T
	switch e.Kind {
	case history.Assigned, history.Revoked, history.Lost:
		if e.Topic != "" && e.Topic != o.topic {
			return
		}
		in := o.member(e.Proc, e.Inc)
		if e.MemberID != "" {
			in.memberID = e.MemberID
		}
		if e.Gen != 0 {
			in.gen = e.Gen
		}
		if e.Kind == history.Assigned {
			in.joined = true
			o.assigned(e, in)
		} else {
			for _, p := range e.Partitions {
				delete(in.owned, p)
			}
			if in.stopping && len(in.owned) == 0 {
				// Its close gave everything up and left the group: it is
				// no longer a member, however long its process takes to
				// exit (a JVM takes longer than the group to rebalance).
				o.kill(in)
			}
		}
		o.changed = true
	case history.Chaos:
		o.settle(e.T)
		if e.Action == vocab.ActionAddPartitions && e.Err == "" {
			var params struct {
				Partitions int32 `json:"partitions"`
			}
			// A count beyond the history's bound is no count a topic had.
			if json.Unmarshal([]byte(e.Params), &params) == nil && params.Partitions > o.count && params.Partitions <= history.MaxPartitions {
				o.count = params.Partitions
			}
		}
		if e.Err == "" && e.Target != "" {
			if in := o.members[key(e.Target, e.TargetInc)]; in != nil {
				switch e.Action {
				case vocab.ActionKill:
					o.kill(in)
				case vocab.ActionPause, vocab.ActionSlow, vocab.ActionStop, vocab.ActionRestart:
					in.disturb = e.T
				}
			}
		}
	case history.Member:
		o.settle(e.T)
		switch e.State {
		case history.StateExited:
			if in := o.members[key(e.Target, e.TargetInc)]; in != nil {
				o.kill(in)
			}
		case history.StateStarted:
			o.member(e.Proc, e.Inc)
		case history.StateStopping:
			o.member(e.Proc, e.Inc).stopping = true
		}
	}
}

func (o *oracle) assigned(e *history.Event, in *incarnation) {
	var handed []int32
	var from []string
	for _, p := range e.Partitions {
		if p >= o.count {
			o.count = p + 1
		}
		for _, other := range o.members {
			if other == in || other.dead || !other.owned[p] {
				continue
			}
			if other.disturb >= other.gotAt[p] && other.disturb > 0 {
				continue // the old owner was paused, stalled or stopped
			}
			handed = append(handed, p)
			from = append(from, other.proc)
		}
		in.owned[p] = true
		in.gotAt[p] = e.T
	}
	if len(handed) > 0 {
		slices.Sort(from)
		from = slices.Compact(from)
		o.report.Findings = append(o.report.Findings, Finding{
			Kind:       "handed_over_while_owned",
			T:          e.T,
			Gen:        e.Gen,
			Members:    append([]string{e.Proc}, from...),
			Partitions: handed,
			Detail: fmt.Sprintf("%s (member %s) was assigned %v while %s still owned them (no revoked or lost event before)",
				e.Proc, in.memberID, handed, strings.Join(from, ", ")),
		})
	}
}

// settle checks the state at a settled point, if it changed since the
// last one.
func (o *oracle) settle(t int64) {
	if !o.changed {
		return
	}
	o.changed = false
	live, owner, settled := o.ownership()
	if len(live) == 0 {
		return
	}
	if !settled {
		o.report.Unsettled++
		o.prevOK = false
		return
	}
	o.report.Settled++
	st := o.settledState(t, live)
	switch o.assignor.Name() {
	case vocab.Range, vocab.RoundRobin:
		o.checkModel(st)
	default:
		o.checkBalance(st)
	}
	cur := make(map[int32]string, len(owner))
	for p, in := range owner {
		cur[p] = in.name()
	}
	if o.prevOK && (o.assignor.Name() == vocab.Sticky || o.assignor.Name() == vocab.CooperativeSticky) {
		o.checkSticky(st, live, cur)
	}
	o.prev, o.prevOK = cur, true
}

// ownership returns the live incarnations (those that joined and are not
// dead), the owner of each partition, and whether the state is settled:
// every partition has exactly one live owner.
func (o *oracle) ownership() (live []*incarnation, owner map[int32]*incarnation, settled bool) {
	owner = make(map[int32]*incarnation, o.count)
	settled = true
	for _, in := range o.members {
		if in.dead || !in.joined {
			continue
		}
		live = append(live, in)
		for p := range in.owned {
			if _, dup := owner[p]; dup {
				settled = false
			}
			owner[p] = in
		}
	}
	return live, owner, settled && int32(len(owner)) == o.count
}

// settledState is a settled point as the model sees it: the live members
// as a group, sorted by incarnation name, all subscribed to the topic,
// and what they owned.
type settledState struct {
	t        int64
	gen      int32 // the highest generation (member epoch) of the live members
	group    *Group
	observed Assignment
	procs    map[string]string // member id -> proc
}

// settledState sorts live and builds the state from it. A member that
// never wrote its member id goes by its incarnation's name.
func (o *oracle) settledState(t int64, live []*incarnation) *settledState {
	sort.Slice(live, func(i, j int) bool { return live[i].name() < live[j].name() })
	st := &settledState{
		t:        t,
		group:    &Group{Topics: map[string]int32{o.topic: o.count}},
		observed: Assignment{},
		procs:    map[string]string{},
	}
	for _, in := range live {
		st.gen = max(st.gen, in.gen)
		id := in.memberID
		if id == "" {
			id = in.name()
		}
		st.procs[id] = in.proc
		ps := slices.Sorted(maps.Keys(in.owned))
		st.group.Members = append(st.group.Members, Member{ID: id, Topics: []string{o.topic}})
		st.observed[id] = NewMemberAssignment(map[string][]int32{o.topic: ps})
	}
	return st
}

func (o *oracle) finding(st *settledState, kind string, members []string, parts []int32, detail string) {
	o.report.Findings = append(o.report.Findings, Finding{Kind: kind, T: st.t, Gen: st.gen, Members: members, Partitions: parts, Detail: detail})
}

// checkModel compares the state with the model run on its members
// (range and roundrobin, which every client computes alike).
func (o *oracle) checkModel(st *settledState) {
	want := o.assignor.Assign(st.group)
	var who []string
	var parts []int32
	var diffs []string
	for _, m := range st.group.Members {
		got, exp := st.observed[m.ID].Partitions(o.topic), want[m.ID].Partitions(o.topic)
		if !slices.Equal(got, exp) {
			who = append(who, st.procs[m.ID])
			parts = append(parts, symmetricDifference(got, exp)...)
			if len(diffs) < 5 {
				diffs = append(diffs, fmt.Sprintf("%s (member %s): observed %v, model %v", st.procs[m.ID], m.ID, got, exp))
			}
		}
	}
	if len(who) > 0 {
		slices.Sort(parts)
		o.finding(st, "differs_from_model", who, slices.Compact(parts), strings.Join(diffs, "; "))
	}
}

// checkBalance checks the balance rule: partition counts differ by one
// at most.
func (o *oracle) checkBalance(st *settledState) {
	s := SkewOf(st.group, st.observed)
	if s.Spread <= 1 {
		return
	}
	var hi, lo []string
	for _, m := range st.group.Members {
		switch st.observed.Count(m.ID) {
		case s.Max:
			hi = append(hi, st.procs[m.ID])
		case s.Min:
			lo = append(lo, st.procs[m.ID])
		}
	}
	o.finding(st, "unbalanced", append(hi, lo...), nil,
		fmt.Sprintf("partitions per member from %d (%s) to %d (%s); the rule allows a difference of one", s.Min, strings.Join(lo, ", "), s.Max, strings.Join(hi, ", ")))
}

// checkSticky compares the moves since the previous settled point with
// the fewest a balanced assignment needed: the previous owners that are
// still members could keep their partitions, the others' must move.
func (o *oracle) checkSticky(st *settledState, live []*incarnation, cur map[int32]string) {
	index := map[string]int{} // incarnation name -> index in st.group.Members
	for i, in := range live {
		index[in.name()] = i
	}
	prev := &Group{Topics: st.group.Topics, Members: slices.Clone(st.group.Members)}
	gone, moves := 0, 0
	var moved []int32
	for p, was := range o.prev {
		if i, ok := index[was]; ok {
			m := &prev.Members[i]
			if m.Owned == nil {
				m.Owned = map[string][]int32{}
			}
			m.Owned[o.topic] = append(m.Owned[o.topic], p)
		} else {
			gone++
		}
		if cur[p] != was {
			moves++
			moved = append(moved, p)
		}
	}
	minimum, _ := minMoves(newSpec(prev, specOwned), []int{gone})
	if moves > minimum {
		slices.Sort(moved)
		var who []string
		for _, in := range live {
			who = append(who, in.proc)
		}
		o.finding(st, "not_sticky", who, moved,
			fmt.Sprintf("%d partitions changed owner since the previous settled point; a balanced assignment needed only %d", moves, minimum))
	}
}

func symmetricDifference(a, b []int32) []int32 {
	var out []int32
	for _, p := range a {
		if !slices.Contains(b, p) {
			out = append(out, p)
		}
	}
	for _, p := range b {
		if !slices.Contains(a, p) {
			out = append(out, p)
		}
	}
	return out
}
