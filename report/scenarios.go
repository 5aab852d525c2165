package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// The scenario catalogue's report (chaos scenarios): several runs, one
// per scenario (a workload of workloads/scenarios), put side by side,
// scenarios by strategies, and every prediction of each scenario's
// expect section judged against its run. A prediction holds when the
// metric (the median over the repeats of a strategy's cells, as the run's
// report shows it) is within its bounds; it is unknown when no cell has a
// value for it, or when the metric is a timing and every cell with a value
// was timed on a saturated host (the host check): the number would
// describe the machine, so it neither holds nor fails.

// ScenariosFile is the catalogue's report, in the folder of runs.
const ScenariosFile = "scenarios.md"

// Scenario is one run of the catalogue.
type Scenario struct {
	Run  *Run
	Spec *workloads.Spec // the workload as the run saved it
	// Statement is the workload's header: what it shows, what physics
	// predicts.
	Statement string
	Checks    []ExpectCheck
}

// ExpectCheck is one prediction judged for one strategy.
type ExpectCheck struct {
	Expect   workloads.Expectation
	Metric   Metric
	Strategy string
	Group    *Group
	Value    float64 // the median; NaN when unknown
	Outcome  Outcome
	Note     string // why it is unknown
	// HostValue is, for a timing unknown because of the host, the median
	// of what the saturated cells measured: shown, not judged.
	HostValue float64
}

// Outcome is a prediction's judgment.
type Outcome string

// The outcomes.
const (
	Held    Outcome = "held"
	NotHeld Outcome = "did not hold"
	Unknown Outcome = "unknown"
)

func (o Outcome) mark() string {
	switch o {
	case Held:
		return "✓"
	case NotHeld:
		return "✗"
	}
	return "?"
}

// statement returns a workload file's header comment, without the
// editor's schema line.
func statement(src string) string {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(l, "#") {
			break
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, "#"))
		if strings.HasPrefix(l, "yaml-language-server:") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.TrimSpace(strings.Join(lines, " "))
}

// judge judges every prediction for every strategy it names.
func (sc *Scenario) judge() error {
	if sc.Spec == nil {
		return nil
	}
	for _, x := range sc.Spec.Expect {
		m, ok := MetricByName(x.Metric)
		if !ok {
			return fmt.Errorf("expect: metric %q: no such metric of the reports", x.Metric)
		}
		strategies := x.Strategies
		if len(strategies) == 0 {
			strategies = sc.Spec.Strategies
		}
		for _, st := range strategies {
			for _, g := range sc.Run.Groups {
				if g.Key.Strategy != st {
					continue
				}
				sc.Checks = append(sc.Checks, judge(x, m, g))
			}
		}
	}
	return nil
}

// judge judges one prediction on one group.
func judge(x workloads.Expectation, m Metric, g *Group) ExpectCheck {
	c := ExpectCheck{Expect: x, Metric: m, Strategy: g.Key.Strategy, Group: g}
	xs := m.Samples(g)
	if len(xs) == 0 {
		c.Value, c.HostValue, c.Outcome = nan, nan, Unknown
		c.Note = "no value"
		if m.hostBound(g) {
			c.Note = "timed on a saturated host"
			var all []float64
			for _, cell := range g.Cells {
				if v, ok := m.Of(cell.S); ok {
					all = append(all, v)
				}
			}
			c.HostValue = Median(all)
		}
		return c
	}
	c.Value = Median(xs)
	c.Outcome = Held
	if (x.Min != nil && c.Value < *x.Min) || (x.Max != nil && c.Value > *x.Max) {
		c.Outcome = NotHeld
	}
	return c
}

var nan = Median(nil)

// bounds renders a prediction's bounds in the metric's unit: "≤ 0",
// "≥ 9.0 s", "9.0 s – 16.0 s".
func bounds(x workloads.Expectation, m Metric) string {
	switch {
	case x.Min != nil && x.Max != nil:
		return m.Format(*x.Min) + " – " + m.Format(*x.Max)
	case x.Min != nil:
		return "≥ " + m.Format(*x.Min)
	}
	return "≤ " + m.Format(*x.Max)
}

// scenarioName is a run's scenario: its workload's name.
func (sc *Scenario) name() string {
	if sc.Run.Meta != nil && sc.Run.Meta.Workload != "" {
		return sc.Run.Meta.Workload
	}
	return filepath.Base(sc.Run.Dir)
}

// counts returns a strategy's predictions by outcome.
func (sc *Scenario) counts(strategy string) (held, notHeld, unknown int) {
	for _, c := range sc.Checks {
		if c.Strategy != strategy {
			continue
		}
		switch c.Outcome {
		case Held:
			held++
		case NotHeld:
			notHeld++
		default:
			unknown++
		}
	}
	return
}

// scenarioMetrics are the figures the side-by-side table gives each
// scenario and strategy.
var scenarioMetrics = []string{"target_pause_p50_ms", "other_pause_p95_ms", "group_stop_ms", "duplicates"}

// WriteScenarios writes the catalogue's report: the scenarios by
// strategies, then each scenario's statement and predictions, judged.
func WriteScenarios(w io.Writer, scs []*Scenario, title string) error {
	e := &ewriter{w: bufio.NewWriter(w)}
	var strategies []string
	for _, sc := range scs {
		for _, g := range sc.Run.Groups {
			if !slices.Contains(strategies, g.Key.Strategy) {
				strategies = append(strategies, g.Key.Strategy)
			}
		}
	}
	sort.SliceStable(strategies, func(i, j int) bool {
		return vocab.StrategyRank(strategies[i]) < vocab.StrategyRank(strategies[j])
	})
	held, notHeld, unknown := 0, 0, 0
	for _, sc := range scs {
		for _, c := range sc.Checks {
			switch c.Outcome {
			case Held:
				held++
			case NotHeld:
				notHeld++
			default:
				unknown++
			}
		}
	}
	e.printf("# %s\n\n", title)
	e.printf("%d scenarios · predictions: %d held, %d did not hold, %d unknown\n\n", len(scs), held, notHeld, unknown)
	e.printf("Each column is a strategy; each cell gives the run's verdict, the host check, the scenario's predictions (✓ held, ✗ did not hold, ? unknown), then the pause of the target's partitions (p50), of the other partitions (p95), the longest group stop and the duplicates (medians over repeats; * timed on a saturated host: what the machine measured, no figure of the group's, and judged nowhere).\n\n")
	e.printf("| scenario |")
	for _, st := range strategies {
		e.printf(" %s |", st)
	}
	e.printf("\n|---|")
	for range strategies {
		e.printf("---|")
	}
	e.printf("\n")
	for _, sc := range scs {
		e.printf("| [%s](#%s) |", sc.name(), anchor(sc.name()))
		for _, st := range strategies {
			e.printf(" %s |", sc.cellText(st))
		}
		e.printf("\n")
	}
	e.printf("\n")
	for _, sc := range scs {
		sc.section(e, strategies)
	}
	return e.flush()
}

// cellText is one scenario and strategy in the side-by-side table.
func (sc *Scenario) cellText(strategy string) string {
	var gs []*Group
	for _, g := range sc.Run.Groups {
		if g.Key.Strategy == strategy {
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		return ""
	}
	var parts []string
	for _, g := range gs {
		h, nh, u := sc.counts(strategy)
		p := strings.TrimSpace(groupVerdict(g)) + " · host " + hostText(g)
		if h+nh+u > 0 {
			p += fmt.Sprintf(" · predictions ✓ %d, ✗ %d, ? %d", h, nh, u)
		}
		var figs []string
		for _, name := range scenarioMetrics {
			m, _ := MetricByName(name)
			figs = append(figs, strings.Replace(groupValue(m, g), " (host-bound)", "*", 1))
		}
		p += "<br>" + strings.Join(figs, " · ")
		if len(gs) > 1 {
			p = g.Key.CommitPolicy + " · " + g.Key.Client + ": " + p
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "<br>")
}

func (sc *Scenario) section(e *ewriter, strategies []string) {
	e.printf("## %s\n\n", sc.name())
	if sc.Statement != "" {
		e.printf("%s\n\n", sc.Statement)
	}
	e.printf("Run: `%s` · %s\n\n", filepath.Base(sc.Run.Dir), sc.Run.Subtitle())
	if len(sc.Checks) == 0 {
		e.printf("No predictions.\n\n")
		return
	}
	e.printf("| prediction | expected | why |")
	var cols []string
	for _, st := range strategies {
		for _, g := range sc.Run.Groups {
			if g.Key.Strategy == st {
				cols = append(cols, st)
				break
			}
		}
	}
	for _, st := range cols {
		e.printf(" %s |", st)
	}
	e.printf("\n|---|---|---|")
	for range cols {
		e.printf("---|")
	}
	e.printf("\n")
	for i, x := range sc.Spec.Expect {
		m, _ := MetricByName(x.Metric)
		e.printf("| %s | %s | %s |", m.Label, bounds(x, m), escapePipes(x.Why))
		for _, st := range cols {
			e.printf(" %s |", sc.outcomeText(i, st))
		}
		e.printf("\n")
	}
	e.printf("\n")
}

// outcomeText is prediction i's judgment for a strategy: "✓ 10.4 s",
// "✗ 2", "? timed on a saturated host", "" when it does not apply.
func (sc *Scenario) outcomeText(i int, strategy string) string {
	x := sc.Spec.Expect[i]
	var out []string
	for _, c := range sc.Checks {
		if c.Strategy != strategy || !sameExpectation(c.Expect, x) {
			continue
		}
		if c.Outcome == Unknown {
			if c.Note == "timed on a saturated host" {
				out = append(out, "? "+c.Metric.Format(c.HostValue)+", "+c.Note)
			} else {
				out = append(out, "? "+c.Note)
			}
			continue
		}
		out = append(out, c.Outcome.mark()+" "+c.Metric.Format(c.Value))
	}
	return strings.Join(out, "; ")
}

func sameExpectation(a, b workloads.Expectation) bool {
	eq := func(x, y *float64) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
	return a.Metric == b.Metric && a.Why == b.Why && eq(a.Min, b.Min) && eq(a.Max, b.Max) && slices.Equal(a.Strategies, b.Strategies)
}

// anchor is the GitHub anchor of a heading.
func anchor(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", "-"))
}

// WriteScenariosFile writes dir/scenarios.md atomically.
func WriteScenariosFile(dir string, scs []*Scenario) error {
	var b strings.Builder
	if err := WriteScenarios(&b, scs, "chaosbench scenarios: "+filepath.Base(filepath.Clean(dir))); err != nil {
		return err
	}
	return runfolder.WriteFile(filepath.Join(dir, ScenariosFile), []byte(b.String()))
}

// ScenariosVerdict is the catalogue's worst outcome: NotHeld when any
// prediction did not hold, else Unknown when any is unknown, else Held.
func ScenariosVerdict(scs []*Scenario) Outcome {
	v := Held
	for _, sc := range scs {
		for _, c := range sc.Checks {
			switch {
			case c.Outcome == NotHeld:
				return NotHeld
			case c.Outcome == Unknown:
				v = Unknown
			}
		}
	}
	return v
}
