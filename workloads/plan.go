package workloads

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Cell is one (strategy, commit policy, client) combination of a workload.
type Cell struct {
	// Name is <strategy>.<policy>.<client>, e.g. sticky.sync-batch.franz:
	// the cell's results folder, and the suffix of its topic and group.
	Name         string `json:"name"`
	Strategy     string `json:"strategy"`
	CommitPolicy string `json:"commit_policy"`
	Client       string `json:"client"`
}

// Cells expands the cell matrix: every strategy x commit policy x client,
// in the order the workload lists them (strategy outermost). Without a
// clients list each strategy runs on its default client; with one, on
// each listed client that implements it (sticky skips confluent).
func (s *Spec) Cells() []Cell {
	var cells []Cell
	for _, st := range s.Strategies {
		clients := s.Clients
		if len(clients) == 0 {
			clients = []string{vocab.DefaultClient(st)}
		}
		clients = slices.DeleteFunc(slices.Clone(clients), func(cl string) bool {
			ok, why := vocab.Supports(cl, st)
			return !ok && why != ""
		})
		for _, pol := range s.CommitPolicies {
			for _, cl := range clients {
				cells = append(cells, Cell{
					Name:     st + "." + pol + "." + cl,
					Strategy: st, CommitPolicy: pol, Client: cl,
				})
			}
		}
	}
	return cells
}

// TopicFor returns the topic of a cell: <topic.name>-<cell>.
func (s *Spec) TopicFor(c Cell) string { return s.Topic.Name + "-" + c.Name }

// OutputSuffix ends the name of a transactional cell's output topic.
const OutputSuffix = ".out"

// OutputTopicFor is the topic a cell of the transactional commit policy
// produces its output to: the cell's topic with OutputSuffix.
func (s *Spec) OutputTopicFor(c Cell) string { return s.TopicFor(c) + OutputSuffix }

// PlannedStep is a chaos step with everything the driver needs resolved:
// its absolute time, random targets drawn with the seed, the names of
// added members. The plan is the same for every cell of the workload.
type PlannedStep struct {
	// Step is the step's number in the workload (1-based).
	Step int `json:"step"`
	// At is the time since traffic start.
	At     time.Duration `json:"at"`
	Action string        `json:"action"`
	// Target is a member name; owner:<partition> (resolved at run time to
	// the member owning that partition); all (rolling_restart);
	// broker-<id> (broker steps, network steps on a broker);
	// broker-coordinator (a network step on the group coordinator's
	// broker, resolved at run time); txn-coordinator:<member>
	// (broker_kill: resolved at run time, Broker 0); broker-of-step-<n>
	// (a broker_restart of the broker step n resolved at run time,
	// KilledBy n); the topic name (add_partitions).
	Target string `json:"target,omitempty"`
	// Random is set when Target was drawn from the seed (target: random).
	Random bool `json:"random,omitempty"`
	// Members are the new members (add), or the members restarted in turn
	// (rolling_restart).
	Members  []string      `json:"members,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	Interval time.Duration `json:"interval,omitempty"`
	// Partitions is the new total (add_partitions).
	Partitions int `json:"partitions,omitempty"`
	// Broker is the node id (broker steps); 0 when the run resolves it.
	Broker int `json:"broker,omitempty"`
	// KilledBy is, for a broker_restart, the number of the earlier
	// broker_kill whose broker the run resolves (txn-coordinator:<member>):
	// the restart starts that broker again.
	KilledBy int `json:"killed_by,omitempty"`
	// Delay, Jitter and BytesPerSecond are a network step's fault
	// (latency, bandwidth).
	Delay          time.Duration `json:"delay,omitempty"`
	Jitter         time.Duration `json:"jitter,omitempty"`
	BytesPerSecond int64         `json:"bytes_per_second,omitempty"`
	// Line is the step's line in the workload file.
	Line int `json:"line"`
}

// ChaosPlan returns the chaos schedule, resolved. Validation built it: a
// step that could not be resolved is an error there.
func (s *Spec) ChaosPlan() []PlannedStep { return slices.Clone(s.plan) }

// stepFields says which optional fields each action takes.
var stepFields = map[string][]string{
	vocab.ActionKill:           {"target"},
	vocab.ActionStop:           {"target"},
	vocab.ActionPause:          {"target", "duration"},
	vocab.ActionSlow:           {"target", "duration"},
	vocab.ActionRestart:        {"target"},
	vocab.ActionRollingRestart: {"target", "interval"},
	vocab.ActionAdd:            {"count"},
	vocab.ActionAddPartitions:  {"partitions"},
	vocab.ActionBrokerKill:     {"broker"},
	vocab.ActionBrokerRestart:  {"broker"},
	vocab.ActionDisconnect:     {"target", "broker", "duration"},
	vocab.ActionReset:          {"target", "broker", "duration"},
	vocab.ActionLatency:        {"target", "broker", "duration", "delay", "jitter"},
	vocab.ActionBandwidth:      {"target", "broker", "duration", "bytes_per_second"},
}

type memberState int

const (
	running memberState = iota
	dead
	maybeDead // an owner:<p> kill may have taken it
)

// schedule tracks the group and the cluster through the chaos steps.
type schedule struct {
	members    map[string]memberState
	next       int // number of the next added member
	partitions int
	brokerDown map[int]bool
	brokers    int
	// runtimeDown: the broker_kill steps (their numbers, in order) whose
	// broker the run resolves and no restart has brought back yet.
	runtimeDown []int
	// unknownGroup: consumer.members is wrong, so which members exist
	// is unknown; unknownPartitions: topic.partitions is.
	unknownGroup, unknownPartitions bool
	// faultUntil: when each target's network fault ends (a path carries
	// one fault at a time).
	faultUntil map[string]time.Duration
	// brokerFaultUntil: when the latest fault on a broker's links ends
	// (every broker's cut shares links with every other's: one at a
	// time).
	brokerFaultUntil time.Duration
	network          bool // the plan has a network step on a member or the producer
	brokerNetwork    bool // the plan has a network step on a broker
}

func memberName(i int) string { return "m" + strconv.Itoa(i) }

func memberNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "m"))
	return n
}

// running returns the members known to be running, in number order.
func (sc *schedule) running() []string {
	var out []string
	for n, st := range sc.members {
		if st == running {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return memberNumber(a) - memberNumber(b) })
	return out
}

func (sc *schedule) alive() int {
	n := 0
	for _, st := range sc.members {
		if st != dead {
			n++
		}
	}
	return n
}

func (v *validator) chaos() {
	s := v.s
	c := s.Chaos
	s.plan = nil
	s.netPaths = nil
	s.brokerNet = false
	if c.Warmup < 0 {
		v.errf("chaos.warmup", "got %v, expected a duration >= 0", c.Warmup)
	} else {
		v.bounded("chaos.warmup", c.Warmup)
	}
	v.positive("chaos.drain_timeout", c.DrainTimeout)
	end, endKnown := v.trafficEnd()
	// An unset warmup is 0, which a records workload whose every record
	// is due at once (records: 1) does not end before: nothing to say.
	if endKnown && s.set("chaos.warmup") && v.ok("chaos.warmup") && c.Warmup >= end {
		v.errf("chaos.warmup", "%v is not before the end of traffic (%v)", c.Warmup, end)
	}
	if len(c.Steps) > MaxSteps {
		v.errf("chaos.steps", "%d steps, expected at most %d", len(c.Steps), MaxSteps)
		return
	}
	if !endKnown && len(c.Steps) > 0 && v.trafficOK() {
		v.warnf("chaos.steps", "step times cannot be checked against the end of traffic: records with an unlimited rate take as long as the cluster needs")
	}
	// A group or a topic found wrong has no schedule to check steps
	// against: that error stands alone (validator).
	sc := &schedule{members: map[string]memberState{}, next: s.Consumer.Members + 1, partitions: s.Topic.Partitions, brokerDown: map[int]bool{}, brokers: s.Broker.Brokers, faultUntil: map[string]time.Duration{},
		unknownGroup: !v.ok("consumer.members"), unknownPartitions: !v.ok("topic.partitions")}
	if !sc.unknownGroup {
		for i := 1; i <= s.Consumer.Members; i++ {
			sc.members[memberName(i)] = running
		}
	}
	rng := s.Rand("chaos")
	var prev time.Duration
	for i, st := range c.Steps {
		f := fmt.Sprintf("chaos.steps[%d]", i)
		ps := PlannedStep{Step: i + 1, Action: st.Action, Line: s.Line(f)}
		// When.
		atSet, afterSet := s.set(f+".at"), s.set(f+".after")
		when := f + ".at"
		if afterSet {
			when = f + ".after"
		}
		timed := false
		switch {
		case atSet && afterSet:
			v.errf(f+".after", "both at and after are set: expected one (at: since traffic start, after: since the previous step)")
		case !atSet && !afterSet:
			v.errf(f, "no at or after: expected one (at: since traffic start, after: since the previous step)")
		case atSet:
			ps.At = st.At
			if st.At < prev {
				v.errf(f+".at", "%v is before the previous step (%v): expected steps in time order", st.At, prev)
			}
			timed = v.bounded(f+".at", st.At)
		case afterSet:
			if st.After < 0 {
				v.errf(f+".after", "got %v, expected a duration >= 0", st.After)
			} else if v.bounded(f+".after", st.After) {
				// Each term is at most MaxDuration and there are at most
				// MaxSteps: the sum cannot overflow.
				ps.At = prev + st.After
				s.Chaos.Steps[i].At = ps.At
				timed = true
			}
		}
		switch {
		case !timed:
		case ps.At <= c.Warmup && v.ok("chaos.warmup"):
			v.errf(when, "the step comes at %v, not after the warmup (chaos.warmup %v): the steady state before the first step needs the warmup to end first", ps.At, c.Warmup)
		case endKnown && ps.At >= end:
			v.errf(when, "the step comes at %v, at or after the end of traffic (%v)", ps.At, end)
		case ps.At > MaxDuration:
			v.errf(when, "the step comes at %v, expected at most %v after traffic starts", ps.At, MaxDuration)
		}
		prev = max(prev, ps.At)

		// What.
		if !s.set(f + ".action") {
			v.errf(f, "no action: expected action: %s", oneOf(vocab.ActionNames()))
			continue
		}
		if !v.enum(f+".action", st.Action, vocab.ActionNames()) {
			continue
		}
		allowed := stepFields[st.Action]
		for _, field := range []string{"target", "count", "duration", "interval", "partitions", "broker", "delay", "jitter", "bytes_per_second"} {
			if s.set(f+"."+field) && !slices.Contains(allowed, field) {
				v.errf(f+"."+field, "not used by %s (which takes %s)", st.Action, takes(allowed))
			}
		}
		v.step(f, st, &ps, sc, rng, end, endKnown)
		act, _ := vocab.LookupAction(st.Action)
		if last := ps.At + ps.Duration; endKnown && (st.Action == vocab.ActionPause || st.Action == vocab.ActionSlow || act.Network) && ps.Duration > 0 && last > end {
			v.warnf(f+".duration", "the %s lasts until %v, %v after the end of traffic (%v): it holds every cell that much longer", st.Action, last, last-end, end)
		}
		s.plan = append(s.plan, ps)
	}
	v.netPathsOf(sc)
	v.s.brokerNet = sc.brokerNetwork
}

// trafficEnd is Spec.TrafficEnd, unknown when a field it derives from was
// found wrong, and refused when a record count at the producer's rate
// would outlast MaxDuration.
func (v *validator) trafficEnd() (time.Duration, bool) {
	if !v.trafficOK() {
		return 0, false
	}
	end, ok := v.s.TrafficEnd()
	if ok && v.s.Records > 0 && end > MaxDuration {
		v.errf("records", "%d records at the producer's rate: the last is due at %v, expected traffic of at most %v", v.s.Records, end, MaxDuration)
		return 0, false
	}
	return end, ok
}

// trafficOK reports whether the fields the end of traffic derives from
// (duration, records, the producer's rate, ramp and steps) are right.
func (v *validator) trafficOK() bool {
	for f := range v.bad {
		if f == "duration" || f == "records" || strings.HasPrefix(f, "producer.rate") ||
			strings.HasPrefix(f, "producer.ramp") || strings.HasPrefix(f, "producer.steps") {
			return false
		}
	}
	return true
}

func takes(fields []string) string {
	if len(fields) == 0 {
		return "no parameters"
	}
	return strings.Join(fields, ", ")
}

// step validates one step's parameters against the schedule so far and
// resolves it.
func (v *validator) step(f string, st Step, ps *PlannedStep, sc *schedule, rng interface{ IntN(int) int }, end time.Duration, endKnown bool) {
	switch st.Action {
	case vocab.ActionKill, vocab.ActionStop, vocab.ActionPause, vocab.ActionSlow, vocab.ActionRestart:
		v.memberStep(f, st, ps, sc, rng)
	case vocab.ActionRollingRestart:
		v.rollingRestartStep(f, st, ps, sc, end, endKnown)
	case vocab.ActionAdd:
		v.addStep(f, st, ps, sc)
	case vocab.ActionAddPartitions:
		v.addPartitionsStep(f, st, ps, sc)
	case vocab.ActionBrokerKill, vocab.ActionBrokerRestart:
		v.brokerStep(f, st, ps, sc, rng)
	case vocab.ActionDisconnect, vocab.ActionReset, vocab.ActionLatency, vocab.ActionBandwidth:
		v.networkStep(f, st, ps, sc, rng)
	}
}

// memberStep resolves a step on one member (kill, stop, pause, slow,
// restart) and notes in the schedule what it does to the group.
func (v *validator) memberStep(f string, st Step, ps *PlannedStep, sc *schedule, rng interface{ IntN(int) int }) {
	s := v.s
	if st.Action == vocab.ActionPause || st.Action == vocab.ActionSlow {
		if !v.stepDuration(f, st) {
			return
		}
		ps.Duration = st.Duration
		if st.Action == vocab.ActionSlow && v.ok("consumer.max_poll_interval") && st.Duration <= s.Consumer.MaxPollInterval {
			v.warnf(f+".duration", "slow for %v does not exceed consumer.max_poll_interval (%v): the member will not be removed from the group", st.Duration, s.Consumer.MaxPollInterval)
		}
	}
	if !s.set(f + ".target") {
		v.errf(f, "no target: expected target: a member name (m1, m2, ...), random or owner:<partition>")
		return
	}
	target, ok := v.memberTarget(f+".target", st, sc, rng)
	if !ok {
		return
	}
	ps.Target, ps.Random = target, st.Target == "random"
	switch st.Action {
	case vocab.ActionKill, vocab.ActionStop:
		if strings.HasPrefix(target, "owner:") {
			// One of the members still alive goes; which one is known
			// only at run time.
			if len(sc.running()) == 1 && sc.alive() == 1 {
				sc.members[sc.running()[0]] = dead
			} else {
				for _, m := range sc.running() {
					sc.members[m] = maybeDead
				}
			}
		} else {
			sc.members[target] = dead
		}
	case vocab.ActionRestart:
		if !strings.HasPrefix(target, "owner:") {
			sc.members[target] = running
		}
	}
}

// stepDuration checks the duration of a pause or slow step.
func (v *validator) stepDuration(f string, st Step) bool {
	if !v.s.set(f + ".duration") {
		what := map[string]string{vocab.ActionPause: "the member is paused (SIGSTOP to SIGCONT)", vocab.ActionSlow: "the member is stalled in processing"}[st.Action]
		if what == "" {
			what = "the network fault lasts"
		}
		v.errf(f, "no duration: expected duration: how long %s", what)
		return false
	}
	if st.Duration <= 0 {
		v.errf(f+".duration", "got %v, expected a duration > 0", st.Duration)
		return false
	}
	return v.bounded(f+".duration", st.Duration)
}

// rollingRestartStep resolves a rolling restart: every member running at
// the time, in number order.
func (v *validator) rollingRestartStep(f string, st Step, ps *PlannedStep, sc *schedule, end time.Duration, endKnown bool) {
	s := v.s
	if s.set(f+".target") && st.Target != "all" {
		v.errf(f+".target", "got %s, expected all (rolling_restart restarts every running member in turn)", clip.Quote(st.Target))
		return
	}
	ps.Target = "all"
	if !s.set(f + ".interval") {
		v.errf(f, "no interval: expected interval: the time between two members' restarts")
		return
	}
	if st.Interval <= 0 {
		v.errf(f+".interval", "got %v, expected a duration > 0", st.Interval)
		return
	}
	if !v.bounded(f+".interval", st.Interval) {
		return
	}
	ps.Interval = st.Interval
	ps.Members = sc.running()
	if sc.unknownGroup {
		return
	}
	if len(ps.Members) == 0 {
		v.errf(f, "rolling_restart with no member known to be running at %v", ps.At)
		return
	}
	if last := ps.At + time.Duration(len(ps.Members)-1)*st.Interval; endKnown && last >= end {
		v.warnf(f+".interval", "the last of %d restarts comes at %v, after the end of traffic (%v)", len(ps.Members), last, end)
	}
}

// addStep names the members an add step starts.
func (v *validator) addStep(f string, st Step, ps *PlannedStep, sc *schedule) {
	s := v.s
	n := 1
	if s.set(f + ".count") {
		n = st.Count
	}
	// n alone first: sc.alive()+n would overflow for n near 2^63.
	if n < 1 || n > MaxMembers || !sc.unknownGroup && sc.alive()+n > MaxMembers {
		v.errf(f+".count", "got %d, expected a number of members >= 1 (the group may have at most %d: it has %d at this point)", n, MaxMembers, sc.alive())
		return
	}
	if sc.unknownGroup {
		return
	}
	for k := 0; k < n; k++ {
		name := memberName(sc.next)
		sc.next++
		sc.members[name] = running
		ps.Members = append(ps.Members, name)
	}
}

// addPartitionsStep checks the new partition count against the current one.
func (v *validator) addPartitionsStep(f string, st Step, ps *PlannedStep, sc *schedule) {
	s := v.s
	if !s.set(f + ".partitions") {
		v.errf(f, "no partitions: expected partitions: the new total partition count")
		return
	}
	if st.Partitions < 1 || st.Partitions > MaxPartitions || !sc.unknownPartitions && st.Partitions <= sc.partitions {
		v.errf(f+".partitions", "got %d, expected a new total above the current %d (Kafka only adds partitions) and at most %d", st.Partitions, sc.partitions, MaxPartitions)
		return
	}
	sc.partitions = st.Partitions
	ps.Partitions = st.Partitions
	ps.Target = s.Topic.Name
}

// brokerStep resolves a broker kill or restart and warns when a kill
// leaves too few brokers for acks=all.
func (v *validator) brokerStep(f string, st Step, ps *PlannedStep, sc *schedule, rng interface{ IntN(int) int }) {
	if !v.ok("broker.brokers") {
		return
	}
	if sc.brokers < 3 {
		v.errf(f+".action", "%s needs a cluster of 3 brokers: set broker.brokers: 3", st.Action)
		return
	}
	if member, ok := strings.CutPrefix(st.Broker, TxnCoordinatorPrefix); ok && v.s.set(f+".broker") {
		if !v.txnCoordinatorTarget(f+".broker", st, member, sc) {
			return
		}
		ps.Target = st.Broker
		sc.runtimeDown = append(sc.runtimeDown, ps.Step)
		v.warnDown(f, sc)
		return
	}
	id, killedBy, ok := v.brokerTarget(f+".broker", st, sc, rng)
	if !ok {
		return
	}
	if killedBy > 0 {
		ps.KilledBy, ps.Target = killedBy, "broker-of-step-"+strconv.Itoa(killedBy)
		sc.runtimeDown = slices.DeleteFunc(sc.runtimeDown, func(n int) bool { return n == killedBy })
		return
	}
	ps.Broker, ps.Target = id, BrokerTarget(id)
	if st.Action == vocab.ActionBrokerKill {
		if len(sc.runtimeDown) > 0 {
			v.warnf(f+".broker", "broker %d may already be down: step %d killed a broker the run resolves (%s)", id, sc.runtimeDown[0], TxnCoordinatorPrefix+"<member>")
		}
		sc.brokerDown[id] = true
		v.warnDown(f, sc)
	} else {
		sc.brokerDown[id] = false
	}
}

// down counts the brokers down at this point of the schedule.
func (sc *schedule) down() int {
	down := len(sc.runtimeDown)
	for _, d := range sc.brokerDown {
		if d {
			down++
		}
	}
	return down
}

// warnDown warns when a kill leaves two brokers of three down.
func (v *validator) warnDown(f string, sc *schedule) {
	if down := sc.down(); down >= 2 {
		v.warnf(f, "%d of 3 brokers down: with min.insync.replicas 2 the acks=all producer stalls until one returns", down)
	}
}

// TxnCoordinatorPrefix begins a broker_kill's broker that the run
// resolves: txn-coordinator:<member> is the broker leading the partition
// of __transaction_state that holds the member's transactional.id (its
// transaction coordinator, as FindCoordinator answers when the step
// runs). In a cell of another policy the member has no transactions, and
// the broker is the one that would coordinate them.
const TxnCoordinatorPrefix = "txn-coordinator:"

// txnCoordinatorTarget checks txn-coordinator:<member>: a broker_kill
// only (a restart names the broker an earlier step killed, or random),
// of a member that exists at this point of the schedule (a dead member's
// last transactional.id still has its coordinator).
func (v *validator) txnCoordinatorTarget(field string, st Step, member string, sc *schedule) bool {
	if st.Action != vocab.ActionBrokerKill {
		v.errf(field, "%s with %s: expected a broker node id or random (random restarts a broker an earlier %s step killed)", clip.Quote(st.Broker), st.Action, TxnCoordinatorPrefix+"<member>")
		return false
	}
	if !memberRe.MatchString(member) {
		v.errf(field, "got %s, expected %s<member> with a member name (m1, m2, ...)", clip.Quote(st.Broker), TxnCoordinatorPrefix)
		return false
	}
	if sc.unknownGroup {
		return false
	}
	if _, ok := sc.members[member]; !ok {
		v.errf(field, "no member %s at this point: the group has %s (add steps create more)", clip.String(member), sc.describe())
		return false
	}
	if sc.down() >= sc.brokers {
		v.errf(field, "every broker is down at this point: expected a running broker (broker_restart brings one back)")
		return false
	}
	return true
}

// memberTarget resolves target: a member name, random or owner:<p>.
func (v *validator) memberTarget(field string, st Step, sc *schedule, rng interface{ IntN(int) int }) (string, bool) {
	t := st.Target
	switch {
	case sc.unknownGroup && (t == "random" || memberRe.MatchString(t)):
		return "", false
	case t == "random":
		cands := sc.running()
		if len(cands) == 0 {
			v.errf(field, "random, but no member is known to be running at this point")
			return "", false
		}
		return cands[rng.IntN(len(cands))], true
	case strings.HasPrefix(t, "owner:"):
		if st.Action == vocab.ActionRestart {
			v.errf(field, "owner:<partition> with restart: expected a member name (a dead member owns nothing) or random")
			return "", false
		}
		p, err := strconv.Atoi(strings.TrimPrefix(t, "owner:"))
		if err != nil || p < 0 || p >= MaxPartitions || !sc.unknownPartitions && p >= sc.partitions {
			v.errf(field, "got %s, expected owner:<partition> with a partition from 0 to %d", clip.Quote(t), sc.partitions-1)
			return "", false
		}
		if sc.unknownGroup {
			return "", false
		}
		if sc.alive() == 0 {
			v.errf(field, "%s, but no member is running at this point", t)
			return "", false
		}
		return t, true
	case memberRe.MatchString(t):
		state, exists := sc.members[t]
		if !exists {
			v.errf(field, "no member %s at this point: the group has %s (add steps create more)", clip.String(t), sc.describe())
			return "", false
		}
		switch {
		case st.Action == vocab.ActionRestart:
			// Restart brings back a dead member, or restarts a running one.
		case state == dead:
			v.errf(field, "%s was already killed or stopped by an earlier step: expected a running member (restart brings one back)", t)
			return "", false
		case state == maybeDead:
			v.warnf(field, "%s may already be gone: an earlier owner:<partition> step killed or stopped a member chosen at run time", t)
		}
		return t, true
	}
	v.errf(field, "got %s, expected a member name (m1, m2, ...), random or owner:<partition>", clip.Quote(t))
	return "", false
}

func (sc *schedule) describe() string {
	names := make([]string, 0, len(sc.members))
	for n := range sc.members {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return memberNumber(a) - memberNumber(b) })
	switch {
	case len(names) == 0:
		return "no members"
	case len(names) > 20:
		return fmt.Sprintf("%s, ..., %s (%d members)", strings.Join(names[:10], ", "), names[len(names)-1], len(names))
	}
	return strings.Join(names, ", ")
}

// brokerTarget resolves a broker step's node id, or random; a random
// restart may instead name an earlier kill whose broker the run
// resolves (killedBy, its step number).
func (v *validator) brokerTarget(field string, st Step, sc *schedule, rng interface{ IntN(int) int }) (id, killedBy int, ok bool) {
	t := st.Broker
	if !v.s.set(field) {
		t = "random"
	}
	if t == "random" {
		// Candidates: node ids, and (restarts) -step for a kill the run
		// resolves.
		var cands []int
		act, _ := vocab.LookupAction(st.Action)
		for id := 1; id <= sc.brokers; id++ {
			if (st.Action == vocab.ActionBrokerKill || act.Network) && !sc.brokerDown[id] {
				cands = append(cands, id)
			}
		}
		if st.Action == vocab.ActionBrokerRestart {
			for id := 1; id <= sc.brokers; id++ {
				if sc.brokerDown[id] {
					cands = append(cands, id)
				}
			}
			for _, n := range sc.runtimeDown {
				cands = append(cands, -n)
			}
			if len(cands) == 0 {
				for id := 1; id <= sc.brokers; id++ {
					cands = append(cands, id)
				}
			}
		}
		if len(cands) == 0 {
			v.errf(field, "random, but every broker is down at this point")
			return 0, 0, false
		}
		c := cands[rng.IntN(len(cands))]
		if c < 0 {
			return 0, -c, true
		}
		return c, 0, true
	}
	id, err := strconv.Atoi(t)
	if err != nil || id < 1 || id > sc.brokers {
		if act, _ := vocab.LookupAction(st.Action); act.Network {
			v.errf(field, "got %s, expected a broker node id from 1 to %d, random or coordinator", clip.Quote(t), sc.brokers)
		} else {
			v.errf(field, "got %s, expected a broker node id from 1 to %d, random, or (broker_kill) %s<member>", clip.Quote(t), sc.brokers, TxnCoordinatorPrefix)
		}
		return 0, 0, false
	}
	if act, _ := vocab.LookupAction(st.Action); act.Network && sc.brokerDown[id] {
		v.errf(field, "broker %d was killed by an earlier step: expected a running broker to cut off (broker_restart brings it back)", id)
		return 0, 0, false
	}
	if st.Action == vocab.ActionBrokerKill && sc.brokerDown[id] {
		v.errf(field, "broker %d was already killed by an earlier step: expected a running broker (broker_restart brings it back)", id)
		return 0, 0, false
	}
	return id, 0, true
}
