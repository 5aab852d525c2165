package check

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
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
	// Host holds the host check's thresholds (host.go); the zero value
	// gives the documented defaults.
	Host summary.HostOptions
	// Also is another checker that reads the same pass over the history:
	// it consumes the events it is given (in time order, each valid until
	// the next) and returns its findings, which are added to the summary
	// (AddFindings). The assignment oracle of package assign is one.
	Also Also
	// Version is the version of the build that analyses, recorded in the
	// summary beside the analysis's revision (summary.Analysis).
	Version string
}

// Also is a checker run in the analyser's pass (Options.Also).
type Also func(cell summary.CellInfo, events iter.Seq[*history.Event]) ([]summary.Finding, error)

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
	o.Host = hostDefaults(o.Host)
	return o
}

// analyzer is one pass over a history: it reads the events in time
// order, counts them, hands each to the group model (which tells the
// checkers through their hooks) and, at the end, gathers the checkers'
// results into the summary.
type analyzer struct {
	model
	files int
	// processedN and producedN count the two kinds most events are, for
	// stats.ByKind.
	processedN, producedN int64
	// checkers are the metrics, in the order their results are written.
	checkers []checker
	// in takes a chaos step before the consequences of its instant
	// (instant.go).
	in instant
}

// Analyze runs every checker over one cell's history in a single pass.
// It is a pure function of the events and cell: the same history always
// gives the same summary. Lines the source cannot read are counted and
// make the verdict unknown; any other error of the source is returned.
func Analyze(src Source, cell summary.CellInfo, opts Options) (*Analysis, error) {
	return newAnalyzer(cell, opts).run(src)
}

func (a *analyzer) run(src Source) (*Analysis, error) {
	var findings []summary.Finding
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
		e, err := a.in.take(src)
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

func newAnalyzer(cell summary.CellInfo, opts Options) *analyzer {
	opts = opts.withDefaults()
	a := &analyzer{model: model{
		opts:      opts,
		grace:     int64(opts.RebalanceGrace),
		cell:      cell,
		members:   map[memberKey]*member{},
		steps:     map[int]*disruption{},
		drainEndT: cell.DrainEndT,
	}}
	g := &a.model
	g.stats.ByKind = map[string]int64{}
	g.tl.init(int64(opts.BinWidth), opts.MaxBins)
	for i := 0; i < cell.Partitions; i++ {
		g.part(int32(i))
	}
	a.checkers = newCheckers(g)
	g.hooks = hooksOf(a.checkers)
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
	case history.Probe:
		s.ByKind["probe"]++
		a.probeEvent(e)
	case history.Txn:
		s.ByKind["txn"]++
		for _, h := range a.hooks.txn {
			h.txn(e)
		}
	case history.Output:
		s.ByKind["output"]++
		for _, h := range a.hooks.txn {
			h.output(e)
		}
	case history.Clock:
		// The merge has put the file's times on the driver's clock.
		s.ByKind["clock"]++
	default:
		s.ByKind["other"]++
	}
	return nil
}

// An Analysis is what one pass over a cell's history found: its summary
// (summary.json) and the latency histograms behind the summary's
// percentiles (latency.hlog, WriteCell).
type Analysis struct {
	*summary.Summary
	latency *latencyCheck
}

// finish computes every result from the state the pass left.
func (a *analyzer) finish() *Analysis {
	a.settlePauses()
	for kind, n := range map[string]int64{"processed": a.processedN, "produced": a.producedN} {
		if n > 0 {
			a.stats.ByKind[kind] += n
		}
	}
	s := &summary.Summary{
		SchemaVersion: summary.SchemaVersion,
		Analysis:      summary.Analysis{Revision: summary.Revision, Chaosbench: a.opts.Version},
		Cell:          a.cell,
		Guarantee:     vocab.GuaranteeOf(a.cell.CommitPolicy),
		History:       a.stats,
		Findings:      []summary.Finding{},
	}
	s.History.Files = a.files
	if s.Cell.StartT == 0 {
		s.Cell.StartT = a.stats.FirstT
	}
	s.Timeline = a.tl.result()
	a.disruptionRows(s)
	out := &Analysis{Summary: s}
	for _, c := range a.checkers {
		c.result(s)
		if l, ok := c.(*latencyCheck); ok {
			out.latency = l
		}
	}
	autoscaleResult(s)
	a.verdict(s)
	return out
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

// ptr returns a pointer to a copy of v: a summary's optional figure.
func ptr[T any](v T) *T { return &v }
