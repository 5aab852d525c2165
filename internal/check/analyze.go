package check

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
)

// Source is a history in time order: history.Merger is one.
type Source interface {
	// Next returns the next event (valid until the following call),
	// io.EOF at the end, or a *history.LineError for a line that could not
	// be read (the source goes on at the next call).
	Next() (*history.Event, error)
}

// Options tune the analysis. The zero value gives the documented
// defaults.
type Options struct {
	// MaxExamples caps the examples kept per anomaly. Default 5.
	MaxExamples int
	// RebalanceGrace: an ownership change less than this after the latest
	// activity of a disruption (a pause ended, an assignment event)
	// belongs to it: the later rounds of an incremental rebalance, the
	// reconciliation steps of the consumer protocol. Default 5s (the
	// consumer protocol's heartbeat interval).
	RebalanceGrace time.Duration
	// BaselineWindow is how far before a disruption the processing rate
	// and lag it must recover to are measured. Default 10s.
	BaselineWindow time.Duration
	// RateWindow is the trailing window of the processing rate the
	// recovery compares. Default 1s.
	RateWindow time.Duration
	// RecoveryFraction is the share of the rate before the disruption
	// that counts as recovered. Default 0.9.
	RecoveryFraction float64
	// BinWidth is the timeline's initial bin width. Default 100ms; bins
	// double in width whenever they would exceed MaxBins (default 4096).
	BinWidth time.Duration
	MaxBins  int
	// Also is another checker that reads the same pass over the history:
	// it consumes the events it is given (in time order, each valid until
	// the next) and returns its findings, which are added to the summary
	// (AddFindings). The assignment oracle of package assign is one.
	Also Also
}

// Also is a checker run in the analyser's pass (Options.Also).
type Also func(cell CellInfo, events iter.Seq[*history.Event]) ([]Finding, error)

func (o Options) withDefaults() Options {
	if o.MaxExamples <= 0 {
		o.MaxExamples = 5
	}
	if o.RebalanceGrace <= 0 {
		o.RebalanceGrace = 5 * time.Second
	}
	if o.BaselineWindow <= 0 {
		o.BaselineWindow = 10 * time.Second
	}
	if o.RateWindow <= 0 {
		o.RateWindow = time.Second
	}
	if o.RecoveryFraction <= 0 {
		o.RecoveryFraction = 0.9
	}
	if o.BinWidth <= 0 {
		o.BinWidth = 100 * time.Millisecond
	}
	if o.MaxBins <= 0 {
		o.MaxBins = 4096
	}
	return o
}

// analyzer is the state of one pass over a history.
type analyzer struct {
	opts  Options
	grace int64
	files int
	cell  CellInfo
	stats HistoryStats
	// processedN and producedN count the two kinds most events are, for
	// stats.ByKind.
	processedN, producedN int64

	phase     string
	shutdown  bool
	drainEndT int64 // from cell.json; the done phase overrides

	parts       []*partition
	members     map[memberKey]*member
	recent      [16]*member // a cache of members (analyzer.member)
	memberOrder []*member
	disr        []*disruption
	// steps maps a chaos step to its disruption (resume finds its pause).
	steps map[int]*disruption

	live      int
	openDisr  int   // disruptions with a partition not live again
	lagTotal  int64 // the sum of the partitions' lag
	stopStart int64
	stopD     *disruption

	// lastJoin is the latest member that started and has not been
	// assigned anything yet: the likely cause of an unplanned rebalance.
	lastJoin *member
	// joiningSeen: the history's members write joining (their join
	// request follows), so their started no longer marks a join.
	joiningSeen bool

	tl   timeline
	dup  dupState
	loss lossState
	ord  orderState
	ovl  overlapState
	lat  latencyState
	skew skewState
}

// Analyze runs every checker over one cell's history in a single pass.
// It is a pure function of the events and cell: the same history always
// gives the same summary. Lines the source cannot read are counted and
// make the verdict unknown; any other error of the source is returned.
func Analyze(src Source, cell CellInfo, opts Options) (*Summary, error) {
	return newAnalyzer(cell, opts).run(src)
}

func (a *analyzer) run(src Source) (*Summary, error) {
	var findings []Finding
	var err error
	if a.opts.Also != nil {
		// The other checker drives the pass; every event it is given has
		// been observed here first.
		var passErr error
		events := func(yield func(*history.Event) bool) {
			for {
				e, err := a.next(src)
				if e == nil {
					passErr = err
					return
				}
				if !yield(e) {
					return
				}
			}
		}
		findings, err = a.opts.Also(a.cell, events)
		if err == nil {
			err = passErr
		}
	}
	for err == nil {
		// The rest of the history (all of it without another checker).
		var e *history.Event
		if e, err = a.next(src); e == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	s := a.finish()
	s.AddFindings(findings...)
	return s, nil
}

// next reads and observes the next event: nil and a nil error at the
// end, nil and the error if the source fails. Unreadable lines are
// counted and skipped.
func (a *analyzer) next(src Source) (*history.Event, error) {
	for {
		e, err := src.Next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			var le *history.LineError
			if errors.As(err, &le) {
				a.stats.BadLines++
				if len(a.stats.BadLineExamples) < a.opts.MaxExamples {
					a.stats.BadLineExamples = append(a.stats.BadLineExamples, le.Error())
				}
				continue
			}
			return nil, err
		}
		if err := a.observe(e); err != nil {
			return nil, err
		}
		return e, nil
	}
}

func newAnalyzer(cell CellInfo, opts Options) *analyzer {
	opts = opts.withDefaults()
	a := &analyzer{
		opts:      opts,
		grace:     int64(opts.RebalanceGrace),
		cell:      cell,
		members:   map[memberKey]*member{},
		steps:     map[int]*disruption{},
		drainEndT: cell.DrainEndT,
	}
	a.stats.ByKind = map[string]int64{}
	a.tl.init(int64(opts.BinWidth), opts.MaxBins)
	a.dup.init()
	a.ord.init()
	a.ovl.init()
	a.lat.init()
	a.skew.init()
	for i := 0; i < cell.Partitions; i++ {
		a.part(int32(i))
	}
	return a
}

// observe feeds one event to the model and the checkers.
func (a *analyzer) observe(e *history.Event) error {
	s := &a.stats
	if s.Events == 0 {
		s.FirstT = e.T
		a.tl.start(e.T)
	} else if e.T < s.LastT {
		return fmt.Errorf("event of %s at t=%d is earlier than the previous event (t=%d): the source is not in time order", e.Proc, e.T, s.LastT)
	}
	s.Events++
	s.LastT = e.T
	if !a.shutdown && a.drainEndT > 0 && e.T > a.drainEndT {
		a.beginShutdown()
	}
	switch e.Kind {
	case history.Processed:
		a.processedN++ // into ByKind at the end: no map update per event
		a.processed(e)
	case history.Produced:
		a.producedN++
		a.produced(e)
	case history.Assigned, history.Revoked, history.Lost:
		s.ByKind[string(e.Kind)]++
		a.assignment(e)
	case history.Committed:
		s.ByKind["committed"]++
		a.committed(e)
	case history.Chaos:
		s.ByKind["chaos"]++
		a.chaos(e)
	case history.Member:
		s.ByKind["member"]++
		a.memberEvent(e)
	case history.Phase:
		s.ByKind["phase"]++
		a.phaseEvent(e)
	default:
		s.ByKind["other"]++
	}
	return nil
}

func (a *analyzer) produced(e *history.Event) {
	if e.Err != "" || e.Ambiguous || e.Offset < 0 {
		if e.Ambiguous {
			a.stats.Ambig++
		} else {
			a.stats.Errors++
		}
		return
	}
	p := a.part(e.Partition)
	if p == nil {
		a.stats.Errors++
		return
	}
	before := p.lag()
	if p.acked.add(e.Offset) {
		a.stats.Acked++
		p.records++
		a.lagTotal += p.lag() - before
		a.tl.acked(e.T, a.lagTotal)
	}
}

func (a *analyzer) processed(e *history.Event) {
	p := a.part(e.Partition)
	if p == nil {
		return
	}
	m := a.member(e.Proc, e.Inc)
	before := p.lag()
	first := p.processed.add(e.Offset)
	a.lagTotal += p.lag() - before
	a.tl.processed(e.T, a.lagTotal)
	m.load.processed++
	if first {
		// Before the model moves: the record that ends a window was
		// processed inside it.
		a.lat.record(a, e)
	}

	zombie := a.overlapCheck(p, m, e)
	if p.owner == nil && !p.everOwned {
		// A history without assignment events: the first member to
		// process a partition owns it.
		m.setAssigned(p.id, e.T)
		p.holders = append(p.holders, m)
		a.setOwner(p, m, e.T)
	}
	if p.owner == m {
		if pp := p.pause; pp != nil && !a.shutdown {
			a.closePause(pp, e.T, false, m)
			p.lastProcT = e.T
		} else {
			a.becomeLive(p, e.T)
			a.keptWait(p, m, e)
		}
	} else if pp := p.last; pp != nil && pp.from == m {
		pp.extra++ // the old owner still processing: it can be redelivered too
	}
	if !first {
		a.duplicate(p, m, e)
	} else if a.drainEndT > 0 && e.T > a.drainEndT {
		a.loss.late++
	}
	a.ord.observe(a, p, m, e, first, zombie)
}

func (a *analyzer) assignment(e *history.Event) {
	m := a.member(e.Proc, e.Inc)
	if e.Kind == history.Assigned {
		m.joined = true
	}
	for _, id := range e.Partitions {
		p := a.part(id)
		if p == nil {
			continue
		}
		switch e.Kind {
		case history.Assigned:
			a.assign(p, m, e.T, "")
		case history.Revoked:
			a.unassign(p, m, e.T, a.trigger("revoked by", m))
		case history.Lost:
			a.lose(p, m, e.T)
		}
	}
	if len(e.Partitions) > 0 || e.Kind == history.Assigned {
		a.rebalanceEvent(e.T, e.Gen, m, e.Kind == history.Assigned)
	}
	if e.Kind == history.Assigned && a.lastJoin == m {
		a.lastJoin = nil
	}
}

// trigger names the likely cause of an unplanned rebalance.
func (a *analyzer) trigger(what string, m *member) string {
	if j := a.lastJoin; j != nil && j != m {
		return "join " + j.name
	}
	return what + " " + m.name
}

func (a *analyzer) committed(e *history.Event) {
	a.stats.Commits++
	if e.Err != "" {
		a.stats.CommitErrors++
		return
	}
	if p := a.part(e.Partition); p != nil {
		p.committed = e.Offset
	}
}

// stopping actions stop the target member's processing when they take
// effect.
var stoppingActions = map[string]bool{"kill": true, "stop": true, "pause": true, "slow": true, "restart": true}

func (a *analyzer) chaos(e *history.Event) {
	label := e.Action
	if e.Target != "" {
		label += " " + e.Target
	}
	a.tl.mark(e.T, label, "chaos")
	if e.Action == "resume" {
		if m := a.lookupMember(e.Target, e.TargetInc); m != nil && e.Err == "" {
			a.resumeMember(m, e.T)
		}
		if d := a.steps[e.Step]; d != nil && e.Step > 0 {
			a.touch(d, e.T)
		}
		return
	}
	if a.shutdown {
		return
	}
	d := a.open(e.T, "chaos", "")
	d.out.Action, d.out.Target, d.out.Step, d.out.Err = e.Action, e.Target, e.Step, e.Err
	if e.Params != "" {
		d.out.Params = []byte(e.Params)
	}
	if e.Step > 0 {
		a.steps[e.Step] = d
	}
	if e.Err != "" || !stoppingActions[e.Action] {
		return
	}
	m := a.lookupMember(e.Target, e.TargetInc)
	if m == nil {
		return
	}
	a.stopMember(m, e.T, d)
	if e.Action == "kill" || e.Action == "stop" {
		a.memberGone(m, e.T, d, "")
	}
}

func (a *analyzer) memberEvent(e *history.Event) {
	switch e.State {
	case history.StateStarted:
		m := a.member(e.Proc, e.Inc)
		m.alive = true
		// Members that announce joining join then: a JVM takes a second or
		// more from its start to its join request. Histories without
		// joining take the start as the join.
		if m.owned == 0 && !a.joiningSeen {
			a.lastJoin = m
		}
	case history.StateJoining:
		a.joiningSeen = true
		if m := a.member(e.Proc, e.Inc); m.owned == 0 {
			a.lastJoin = m
		}
	case history.StateSpawned:
		if e.Target != "" {
			a.member(e.Target, e.TargetInc).alive = true
		}
	case history.StateExited:
		if m := a.lookupMember(e.Target, e.TargetInc); m != nil {
			a.memberGone(m, e.T, nil, "exit "+m.name)
		}
	}
}

func (a *analyzer) phaseEvent(e *history.Event) {
	a.phase = e.Phase
	a.stats.Phases = append(a.stats.Phases, PhaseMark{Phase: e.Phase, T: e.T})
	a.tl.mark(e.T, e.Phase, "phase")
	switch e.Phase {
	case "steady":
		if a.tl.steadyT == 0 {
			a.tl.steadyT = e.T
		}
	case "drain":
		if a.cell.TrafficEndT == 0 {
			a.cell.TrafficEndT = e.T
		}
		a.sampleSpreadFinal()
	case "done", "interrupted":
		a.drainEndT = e.T
		a.beginShutdown()
	}
}

// beginShutdown: the drain is over; members are being stopped. From here
// ownership changes are the run ending, not disruptions.
func (a *analyzer) beginShutdown() {
	if a.shutdown {
		return
	}
	if a.skew.final == nil {
		a.sampleSpreadFinal()
	}
	a.shutdown = true
	if a.cell.DrainEndT == 0 {
		a.cell.DrainEndT = a.drainEndT
	}
}

// finish computes every result from the state the pass left.
func (a *analyzer) finish() *Summary {
	end := a.stats.LastT
	if a.skew.final == nil {
		a.sampleSpreadFinal()
	}
	a.finishPauses(end)
	for kind, n := range map[string]int64{"processed": a.processedN, "produced": a.producedN} {
		if n > 0 {
			a.stats.ByKind[kind] += n
		}
	}
	s := &Summary{
		SchemaVersion: SchemaVersion,
		Cell:          a.cell,
		Guarantee:     GuaranteeOf(a.cell.CommitPolicy),
		History:       a.stats,
		Findings:      []Finding{},
	}
	s.History.Files = a.files
	s.latency = &a.lat
	a.lat.startT, a.lat.endT = a.stats.FirstT, a.stats.LastT
	if s.Cell.StartT == 0 {
		s.Cell.StartT = a.stats.FirstT
	}
	s.Timeline = a.tl.result()
	a.finishDisruptions(s)
	a.pauseResult(s)
	a.recoveryResult(s)
	a.duplicatesResult(s)
	a.lossResult(s)
	a.orderingResult(s)
	a.overlapResult(s)
	a.skewResult(s)
	a.movementResult(s)
	a.latencyResult(s)
	a.verdict(s)
	return s
}

// SliceSource serves events from memory, sorted by time (stable: events
// with equal times keep their order).
func SliceSource(evs []history.Event) Source {
	cp := make([]history.Event, len(evs))
	copy(cp, evs)
	sort.SliceStable(cp, func(i, j int) bool { return cp[i].T < cp[j].T })
	return &sliceSource{evs: cp}
}

type sliceSource struct {
	evs []history.Event
	i   int
}

func (s *sliceSource) Next() (*history.Event, error) {
	if s.i >= len(s.evs) {
		return nil, io.EOF
	}
	s.i++
	return &s.evs[s.i-1], nil
}
