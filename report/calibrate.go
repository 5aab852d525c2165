package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"github.com/chaosbench/chaosbench/internal/stat"
)

// A nightly comparison is only trusted if it is red when something
// changed and green otherwise. Calibrate measures both on real runs:
// repeated iterations of unchanged code, resampled into many
// baseline/candidate splits, give how often chance alone turns a night
// red, and the run-to-run spread each metric shows, from which its
// threshold is set; candidates carrying a deliberate regression give how
// often a night with one is red. `make nightly-calibrate` runs it
// (docs/nightly.md).

// ThresholdsFile is where a baseline keeps the thresholds calibrated for
// it: chaos compare reads them from the baseline's folder.
const ThresholdsFile = "thresholds.json"

// thresholdsSchemaVersion is the version of thresholds.json.
const thresholdsSchemaVersion = 1

// Calibrated is thresholds.json: a threshold per group and metric, and
// per metric for a group the calibration did not see.
type Calibrated struct {
	SchemaVersion int `json:"schema_version"`
	// Quantile is the share of unchanged splits whose change a threshold
	// exceeds no more than; Splits how many splits it was measured on.
	Quantile float64 `json:"quantile"`
	Splits   int     `json:"splits"`
	// Groups: by group (Key.String), by metric name.
	Groups map[string]map[string]Threshold `json:"groups"`
	// Metrics: by metric name, the largest of its groups'.
	Metrics map[string]Threshold `json:"metrics"`
}

// thresholdJSON is a Threshold in thresholds.json.
type thresholdJSON struct {
	Relative float64 `json:"relative"`
	Absolute float64 `json:"absolute"`
}

// MarshalJSON writes a threshold with its fields named.
func (t Threshold) MarshalJSON() ([]byte, error) {
	return json.Marshal(thresholdJSON(t))
}

// UnmarshalJSON reads a threshold.
func (t *Threshold) UnmarshalJSON(b []byte) error {
	var j thresholdJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*t = Threshold(j)
	return nil
}

// maxThreshold bounds a threshold read from a file: far beyond any
// change of any metric's unit (an hour in ms, a billion records).
const maxThreshold = 1e9

// ParseThresholds reads thresholds.json (path names it in errors): every
// group a strategy · policy · client, every metric one of Metrics, every
// threshold a number from 0 to a bound.
func ParseThresholds(path string, b []byte) (*Calibrated, error) {
	var c Calibrated
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.SchemaVersion != thresholdsSchemaVersion {
		return nil, fmt.Errorf("%s: field \"schema_version\": %d, expected %d (run chaos calibrate again)", path, c.SchemaVersion, thresholdsSchemaVersion)
	}
	check := func(field, metric string, t Threshold) error {
		if _, ok := MetricByName(metric); !ok {
			return fmt.Errorf("%s: field %s: unknown metric %q (expected one of the report's metrics)", path, field, metric)
		}
		for _, v := range []float64{t.Relative, t.Absolute} {
			if !(v >= 0 && v <= maxThreshold) {
				return fmt.Errorf("%s: field %s.%s: %v, expected a number from 0 to %g", path, field, metric, v, float64(maxThreshold))
			}
		}
		return nil
	}
	for g, ms := range c.Groups {
		if _, err := ParseKey(g); err != nil {
			return nil, fmt.Errorf("%s: field \"groups\": %w", path, err)
		}
		for m, t := range ms {
			if err := check(fmt.Sprintf("\"groups\".%q", g), m, t); err != nil {
				return nil, err
			}
		}
	}
	for m, t := range c.Metrics {
		if err := check("\"metrics\"", m, t); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// CalibrateOptions are a calibration's shape.
type CalibrateOptions struct {
	// BaselineSize and CandidateSize are the iterations per group of the
	// baseline and the candidate each split draws, as the nightly
	// compares them.
	BaselineSize, CandidateSize int
	// Splits is how many random splits are drawn; Seed seeds them.
	Splits int
	Seed   uint64
	// Quantile: a metric's threshold is this quantile of the change
	// (candidate's median minus baseline's, in absolute value) it shows
	// between the two sides of unchanged splits. Default 0.95.
	Quantile float64
	Alpha    float64
}

// A Regression is a candidate that carries a deliberate regression: the
// groups it holds replace the unchanged candidate's.
type Regression struct {
	Name string
	Run  *Run
}

// Calibration is what Calibrate measured.
type Calibration struct {
	Options CalibrateOptions
	// Iterations is the fewest iterations a group of the unchanged runs
	// has; Groups how many groups; Tests the family's size in the last
	// split.
	Iterations, Groups, Tests int
	Thresholds                *Calibrated
	// FalseRed counts red nights among the unchanged splits, per way of
	// judging them.
	FalseRed []RedCount
	// Detected counts red nights per regression, judged the calibrated
	// way.
	Detected []RedCount
	// Spread is each metric's run-to-run spread in the unchanged runs,
	// per group: the median and the threshold.
	Spread []MetricSpread
}

// RedCount is how many of Of nights were red, judged one way.
type RedCount struct {
	Name     string
	Red, Of  int
	Examples []string // what turned the first few red nights red
}

// MetricSpread is a metric's spread in one group of unchanged runs.
type MetricSpread struct {
	Group     string
	Metric    string
	Median    float64
	Threshold float64
}

// Ways a night is judged, from the old to the calibrated.
var judgings = []struct {
	name string
	opts func(c *Calibrated, alpha float64) CompareOptions
}{
	{"each metric at alpha alone, 10% thresholds", func(_ *Calibrated, a float64) CompareOptions {
		return CompareOptions{Alpha: a, Correction: NoCorrection}
	}},
	{"Holm's correction, 10% thresholds", func(_ *Calibrated, a float64) CompareOptions {
		return CompareOptions{Alpha: a, Correction: Holm}
	}},
	{"each metric at alpha alone, calibrated thresholds", func(c *Calibrated, a float64) CompareOptions {
		return CompareOptions{Alpha: a, Correction: NoCorrection, GroupThresholds: c.Groups, Thresholds: c.Metrics}
	}},
	{"Holm's correction, calibrated thresholds (the nightly's)", func(c *Calibrated, a float64) CompareOptions {
		return CompareOptions{Alpha: a, Correction: Holm, GroupThresholds: c.Groups, Thresholds: c.Metrics}
	}},
}

// Calibrate calibrates the nightly's judgement on unchanged runs and
// candidates with regressions.
func Calibrate(unchanged *Run, regressions []Regression, o CalibrateOptions) (*Calibration, error) {
	if o.Quantile <= 0 {
		o.Quantile = 0.95
	}
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.Splits < 1 {
		return nil, fmt.Errorf("calibrate: %d splits, expected at least 1", o.Splits)
	}
	cal := &Calibration{Options: o, Groups: len(unchanged.Groups), Iterations: math.MaxInt}
	for _, g := range unchanged.Groups {
		cal.Iterations = min(cal.Iterations, len(g.Cells))
	}
	if len(unchanged.Groups) == 0 {
		return nil, fmt.Errorf("calibrate: %s: no cells", unchanged.Dir)
	}
	if o.BaselineSize < 2 || o.CandidateSize < 2 {
		return nil, fmt.Errorf("calibrate: %d baseline and %d candidate iterations, expected at least 2 each", o.BaselineSize, o.CandidateSize)
	}
	if need := o.BaselineSize + o.CandidateSize; cal.Iterations < need {
		return nil, fmt.Errorf("calibrate: %s: every group needs %d iterations (%d baseline + %d candidate, drawn apart); the fewest has %d",
			unchanged.Dir, need, o.BaselineSize, o.CandidateSize, cal.Iterations)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6e696768746c79))
	splits := make([][2]*Run, o.Splits)
	for i := range splits {
		splits[i][0], splits[i][1] = split(unchanged, o.BaselineSize, o.CandidateSize, rng)
	}
	cal.Thresholds, cal.Spread = thresholdsOf(unchanged, splits, o.Quantile)
	for _, j := range judgings {
		rc := RedCount{Name: j.name, Of: len(splits)}
		for _, s := range splits {
			c := Compare(s[0], s[1], j.opts(cal.Thresholds, o.Alpha))
			cal.Tests = c.Tests
			rc.note(c)
		}
		cal.FalseRed = append(cal.FalseRed, rc)
	}
	nightly := judgings[len(judgings)-1]
	for _, r := range regressions {
		rc := RedCount{Name: r.Name, Of: len(splits)}
		for _, s := range splits {
			cand := withGroups(s[1], r.Run, o.CandidateSize, rng)
			rc.note(Compare(s[0], cand, nightly.opts(cal.Thresholds, o.Alpha)))
		}
		cal.Detected = append(cal.Detected, rc)
	}
	return cal, nil
}

// note counts a night, and what turned it red.
func (rc *RedCount) note(c *Comparison) {
	if c.Regressions() == 0 {
		return
	}
	rc.Red++
	if len(rc.Examples) >= 3 {
		return
	}
	for _, g := range c.Groups {
		if g.VerdictRegression != "" {
			rc.Examples = append(rc.Examples, fmt.Sprintf("%s: %s", g.Key, g.VerdictRegression))
		}
		for _, ch := range g.Changes {
			if ch.Regression {
				rc.Examples = append(rc.Examples, fmt.Sprintf("%s: %s %s (p corrected %.2g)", g.Key, ch.Metric.Name, formatChange(ch), ch.PAdjusted))
				return
			}
		}
	}
}

// split draws, per group, a baseline of nb iterations and a candidate of
// nc others.
func split(r *Run, nb, nc int, rng *rand.Rand) (base, cand *Run) {
	base, cand = &Run{Dir: r.Dir + " (baseline split)"}, &Run{Dir: r.Dir + " (candidate split)"}
	for _, g := range r.Groups {
		perm := rng.Perm(len(g.Cells))
		bg, cg := &Group{Key: g.Key}, &Group{Key: g.Key}
		for _, i := range perm[:nb] {
			bg.Cells = append(bg.Cells, g.Cells[i])
		}
		for _, i := range perm[nb : nb+nc] {
			cg.Cells = append(cg.Cells, g.Cells[i])
		}
		base.Groups, cand.Groups = append(base.Groups, bg), append(cand.Groups, cg)
		base.Cells, cand.Cells = append(base.Cells, bg.Cells...), append(cand.Cells, cg.Cells...)
	}
	return base, cand
}

// withGroups is cand with the groups reg holds replaced by n of reg's
// iterations, drawn at random.
func withGroups(cand, reg *Run, n int, rng *rand.Rand) *Run {
	out := &Run{Dir: reg.Dir}
	byKey := map[Key]*Group{}
	for _, g := range reg.Groups {
		byKey[g.Key] = g
	}
	for _, g := range cand.Groups {
		if rg, ok := byKey[g.Key]; ok {
			ng := &Group{Key: g.Key}
			for _, i := range rng.Perm(len(rg.Cells))[:min(n, len(rg.Cells))] {
				ng.Cells = append(ng.Cells, rg.Cells[i])
			}
			g = ng
		}
		out.Groups = append(out.Groups, g)
		out.Cells = append(out.Cells, g.Cells...)
	}
	return out
}

// thresholdsOf sets each group's and metric's threshold at the quantile of
// the change unchanged splits show, and each metric's at the largest of
// its groups'.
func thresholdsOf(r *Run, splits [][2]*Run, q float64) (*Calibrated, []MetricSpread) {
	cal := &Calibrated{SchemaVersion: thresholdsSchemaVersion, Quantile: q, Splits: len(splits),
		Groups: map[string]map[string]Threshold{}, Metrics: map[string]Threshold{}}
	var spreads []MetricSpread
	for gi, g := range r.Groups {
		ms := map[string]Threshold{}
		for _, m := range Metrics {
			var deltas []float64
			for _, s := range splits {
				b, c := m.Samples(s[0].Groups[gi]), m.Samples(s[1].Groups[gi])
				if len(b) == 0 || len(c) == 0 {
					continue
				}
				deltas = append(deltas, math.Abs(stat.Median(c)-stat.Median(b)))
			}
			if len(deltas) == 0 {
				continue
			}
			t := Threshold{Absolute: quantile(deltas, q)}
			ms[m.Name] = t
			if t.Absolute > cal.Metrics[m.Name].Absolute {
				cal.Metrics[m.Name] = t
			} else if _, ok := cal.Metrics[m.Name]; !ok {
				cal.Metrics[m.Name] = t
			}
			spreads = append(spreads, MetricSpread{Group: g.Key.String(), Metric: m.Name, Median: stat.Median(m.Samples(g)), Threshold: t.Absolute})
		}
		cal.Groups[g.Key.String()] = ms
	}
	return cal, spreads
}

// quantile is the q-quantile of xs, nearest rank.
func quantile(xs []float64, q float64) float64 {
	v := slices.Clone(xs)
	sort.Float64s(v)
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

// WriteCalibration writes calibration.md: how often each way of judging a
// night was red on unchanged code and on each regression, and each
// metric's spread and threshold.
func WriteCalibration(w io.Writer, c *Calibration) error {
	e := &ewriter{w: bufio.NewWriter(w)}
	o := c.Options
	e.printf("# Nightly calibration\n\n")
	e.printf("%d groups with at least %d iterations of unchanged code each, resampled into %d nights: a baseline of %d iterations and a candidate of %d others per group, drawn at random (seed %d). A night is red when the comparison finds a regression: a change significant at family-wise level %g, worse, and beyond its threshold. The last comparison tested a family of %d metrics.\n\n",
		c.Groups, c.Iterations, o.Splits, o.BaselineSize, o.CandidateSize, o.Seed, o.Alpha, c.Tests)
	e.printf("## Red nights on unchanged code\n\n| judged by | red nights | share |\n|---|--:|--:|\n")
	for _, r := range c.FalseRed {
		e.printf("| %s | %d of %d | %s |\n", r.Name, r.Red, r.Of, pctOf(r.Red, r.Of))
	}
	e.printf("\nThe calibrated thresholds are the %s quantile of the change each metric shows between the two sides of these same nights, so the last row's share is measured on the runs the thresholds come from; Holm's correction alone (the second row) bounds the share by %g whatever the thresholds.\n\n", pctText(o.Quantile), o.Alpha)
	for _, r := range c.FalseRed {
		for _, x := range r.Examples {
			e.printf("- %s: %s\n", r.Name, x)
		}
	}
	if len(c.Detected) > 0 {
		e.printf("\n## Red nights with a regression (the nightly's judgement)\n\n| regression | red nights | share |\n|---|--:|--:|\n")
		for _, r := range c.Detected {
			e.printf("| %s | %d of %d | %s |\n", r.Name, r.Red, r.Of, pctOf(r.Red, r.Of))
		}
		e.printf("\n")
		for _, r := range c.Detected {
			for _, x := range r.Examples {
				e.printf("- %s: %s\n", r.Name, x)
			}
		}
	}
	e.printf("\n## Thresholds\n\nPer group, each metric's median over the unchanged iterations and its threshold (the change between the sides of a split that no more than %s of unchanged nights exceed).\n\n", pctText(1-o.Quantile))
	e.printf("| group | metric | median | threshold |\n|---|---|--:|--:|\n")
	for _, s := range c.Spread {
		m, _ := MetricByName(s.Metric)
		e.printf("| %s | %s | %s | %s |\n", s.Group, m.Label, m.Format(s.Median), m.Format(s.Threshold))
	}
	return e.flush()
}

func pctOf(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func pctText(f float64) string { return strconv.FormatFloat(100*f, 'g', 3, 64) + "%" }
