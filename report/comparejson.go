package report

import (
	"encoding/json"
	"io"
	"math"
)

// ComparisonSchemaVersion is the version of compare.json; it grows by one
// when a field changes meaning or disappears.
const ComparisonSchemaVersion = 1

// ComparisonJSON is compare.json: the comparison for machines, with
// everything compare.md shows. Numbers that do not exist (the median of
// no samples, the p-value of a single iteration, a relative change from
// zero) are null.
type ComparisonJSON struct {
	SchemaVersion int      `json:"schema_version"`
	Baseline      SideJSON `json:"baseline"`
	Candidate     SideJSON `json:"candidate"`
	Alpha         float64  `json:"alpha"`
	// Correction is how the family's p-values are corrected (holm or
	// none); Tests the family's size.
	Correction  string `json:"correction"`
	Tests       int    `json:"tests"`
	Regressions int    `json:"regressions"`
	// BaselineRevisions and CandidateRevisions are the oldest and newest
	// analysis revision of each side's summaries; Unjudged the metrics
	// whose definitions changed between them.
	BaselineRevisions  [2]int                `json:"baseline_revisions"`
	CandidateRevisions [2]int                `json:"candidate_revisions"`
	Unjudged           []string              `json:"unjudged"`
	Environment        EnvironmentComparison `json:"environment"`
	OnlyBaseline       []string              `json:"only_baseline"`
	OnlyCandidate      []string              `json:"only_candidate"`
	Groups             []GroupJSON           `json:"groups"`
}

// SideJSON names one side of a comparison.
type SideJSON struct {
	Dir   string `json:"dir"`
	Cells int    `json:"cells"`
}

// GroupJSON is one (strategy, commit policy, client) compared.
type GroupJSON struct {
	Strategy            string `json:"strategy"`
	CommitPolicy        string `json:"commit_policy"`
	Client              string `json:"client"`
	BaselineIterations  int    `json:"baseline_iterations"`
	CandidateIterations int    `json:"candidate_iterations"`
	BaselineVerdict     string `json:"baseline_verdict"`
	CandidateVerdict    string `json:"candidate_verdict"`
	// MinP is the smallest p-value the test can give with these
	// iterations: above alpha, nothing can be significant.
	MinP              float64      `json:"min_p"`
	VerdictRegression string       `json:"verdict_regression,omitempty"`
	Metrics           []MetricJSON `json:"metrics"`
}

// MetricJSON is one metric of a group compared.
type MetricJSON struct {
	Name          string     `json:"name"`
	Label         string     `json:"label"`
	Unit          string     `json:"unit"`
	LowerIsBetter bool       `json:"lower_is_better"`
	Baseline      SpreadJSON `json:"baseline"`
	Candidate     SpreadJSON `json:"candidate"`
	// Change is the candidate's median minus the baseline's;
	// RelativeChange is Change over the baseline's median (null from 0).
	Change         *float64 `json:"change"`
	RelativeChange *float64 `json:"relative_change"`
	PValue         *float64 `json:"p_value"`
	// PAdjusted is the p-value corrected for the family (Holm).
	PAdjusted *float64 `json:"p_adjusted"`
	Threshold struct {
		Relative float64 `json:"relative"`
		Absolute float64 `json:"absolute"`
	} `json:"threshold"`
	// Verdict is regression, worse (significant, within the threshold),
	// better, unchanged (not significant), untested (fewer than two
	// samples on a side) or not judged (the two sides' analyses define
	// it differently).
	Verdict string `json:"verdict"`
}

// SpreadJSON is a side's samples of a metric.
type SpreadJSON struct {
	N       int       `json:"n"`
	Median  *float64  `json:"median"`
	Min     *float64  `json:"min"`
	Max     *float64  `json:"max"`
	Q1      *float64  `json:"q1"`
	Q3      *float64  `json:"q3"`
	Samples []float64 `json:"samples"`
}

// number is v, or nil when v is NaN or infinite (JSON has neither).
func number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func spreadJSON(s Spread, samples []float64) SpreadJSON {
	if samples == nil {
		samples = []float64{}
	}
	return SpreadJSON{N: s.N, Median: number(s.Median), Min: number(s.Min), Max: number(s.Max),
		Q1: number(s.Q1), Q3: number(s.Q3), Samples: samples}
}

// verdict names what a change is.
func (ch Change) verdict() string {
	switch {
	case ch.NotJudged != "":
		return "not judged"
	case math.IsNaN(ch.P):
		return "untested"
	case ch.Regression:
		return "regression"
	case ch.Significant && ch.Worse:
		return "worse"
	case ch.Significant:
		return "better"
	}
	return "unchanged"
}

// JSON returns compare.json of a comparison.
func (c *Comparison) JSON() ComparisonJSON {
	out := ComparisonJSON{
		SchemaVersion: ComparisonSchemaVersion,
		Baseline:      SideJSON{Dir: c.Base.Dir, Cells: len(c.Base.Cells)},
		Candidate:     SideJSON{Dir: c.Cand.Dir, Cells: len(c.Cand.Cells)},
		Alpha:         c.Options.Alpha, Correction: string(c.Options.Correction), Tests: c.Tests,
		Regressions: c.Regressions(), Environment: c.Environment,
		BaselineRevisions: c.BaseRevisions, CandidateRevisions: c.CandRevisions, Unjudged: append([]string{}, c.Unjudged...),
		OnlyBaseline: []string{}, OnlyCandidate: []string{}, Groups: []GroupJSON{},
	}
	for _, k := range c.OnlyBase {
		out.OnlyBaseline = append(out.OnlyBaseline, k.String())
	}
	for _, k := range c.OnlyCand {
		out.OnlyCandidate = append(out.OnlyCandidate, k.String())
	}
	for _, g := range c.Groups {
		gj := GroupJSON{Strategy: g.Key.Strategy, CommitPolicy: g.Key.CommitPolicy, Client: g.Key.Client,
			BaselineIterations: len(g.Base.Cells), CandidateIterations: len(g.Cand.Cells),
			BaselineVerdict: groupVerdict(g.Base), CandidateVerdict: groupVerdict(g.Cand),
			MinP: MinP(len(g.Base.Cells), len(g.Cand.Cells)), VerdictRegression: g.VerdictRegression, Metrics: []MetricJSON{}}
		for _, ch := range g.Changes {
			m := MetricJSON{Name: ch.Metric.Name, Label: ch.Metric.Label, Unit: ch.Metric.Unit, LowerIsBetter: ch.Metric.LowerIsBetter,
				Baseline: spreadJSON(ch.BaseSpread, ch.Base), Candidate: spreadJSON(ch.CandSpread, ch.Cand),
				Change: number(ch.Delta), RelativeChange: number(ch.Relative), PValue: number(ch.P), PAdjusted: number(ch.PAdjusted), Verdict: ch.verdict()}
			m.Threshold.Relative, m.Threshold.Absolute = ch.Threshold.Relative, ch.Threshold.Absolute
			gj.Metrics = append(gj.Metrics, m)
		}
		out.Groups = append(out.Groups, gj)
	}
	return out
}

// WriteComparisonJSON writes compare.json.
func WriteComparisonJSON(w io.Writer, c *Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c.JSON())
}
