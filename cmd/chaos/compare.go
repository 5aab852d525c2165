package main

import (
	"bytes"
	"errors"
	"fmt"
	iofs "io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/report"
)

const compareUsage = `usage: chaos compare [flags] BASELINE CANDIDATE

Compares two sets of runs metric by metric. Cells are grouped by strategy,
commit policy and client (read from cell.json, wherever they sit under
each folder); a group's iterations (chaos run --repeat N) are its samples.
A change is significant when the Mann-Whitney U test (exact, two-sided)
rejects equal distributions once corrected for the whole family of
tests (Holm's correction: the chance that unchanged code shows any
significant change is at most -alpha), and a regression when it is
significant, in the worse direction and beyond the metric's threshold. A
group with an invalid candidate cell where the baseline had none is a
regression too. Significance needs iterations: with 8 per side the
smallest possible p is 0.00016, enough for a family of a hundred tests;
with 5 it is 0.008, which a family of seven tests already cannot pass.

Thresholds are the metric's own (-threshold), else those of a
calibration (chaos calibrate) kept with the baseline as thresholds.json
(or given with -thresholds), else 10%%.

Cells without summary.json are analysed first. When the two sides'
summaries come from different revisions of the analysis and both keep
their histories, both are analysed again with this build; otherwise the
metrics whose definitions changed between them are listed and not
judged. Prints the comparison as
Markdown (and writes it to -o; as JSON to -json). Says plainly when the
baseline and the candidate ran on different machines (cores, CPU model,
memory) or clusters (provider, Kafka release).

Exit status: 0 without regression, 1 with one, 2 on bad input.

Metrics for -threshold: %s

Flags:
`

func init() {
	register("compare", "compare two sets of runs, metric by metric, with a rank test", runCompare)
}

// thresholds is the repeatable -threshold flag: NAME=VALUE, where VALUE
// is a relative change ("20%"), an absolute one in the metric's unit
// ("500"), or both ("20%,500"); NAME "default" sets every other metric's.
type thresholds map[string]report.Threshold

func (t thresholds) String() string {
	var parts []string
	for k, v := range t {
		parts = append(parts, k+"="+v.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (t thresholds) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" || value == "" {
		return fmt.Errorf("%s: expected NAME=VALUE, such as pause_p95_ms=20%% or duplicates=100", clip.Quote(s))
	}
	if _, known := report.MetricByName(name); !known && name != "default" {
		return fmt.Errorf("%s: unknown metric %s (expected one of: %s, or default)", clip.Quote(s), clip.Quote(name), metricNames())
	}
	var th report.Threshold
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if pct, isPct := strings.CutSuffix(part, "%"); isPct {
			v, err := strconv.ParseFloat(pct, 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: %s is not a non-negative percentage", clip.Quote(s), clip.Quote(part))
			}
			th.Relative = v / 100
			continue
		}
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: %s is neither a percentage (20%%) nor a non-negative number", clip.Quote(s), clip.Quote(part))
		}
		th.Absolute = v
	}
	t[name] = th
	return nil
}

// checkNewFile refuses a file a flag would write (path, if not empty)
// that exists, or whose folder does not: it would be overwritten (a
// comparison over a run's own cell.json), or fail after the summaries
// were written.
func checkNewFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s %s: exists (a file is never overwritten: choose another name)", flag, clip.Quote(path))
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("%s %s: no folder %s to write it in", flag, clip.Quote(path), clip.Quote(filepath.Dir(path)))
	}
	return nil
}

func metricNames() string {
	var names []string
	for _, m := range report.Metrics {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

func runCompare(args []string) error {
	fs := cli.NewFlagSet("compare", os.Stderr)
	fs.Usage = func() { fmt.Fprintf(fs.Output(), compareUsage, metricNames()); fs.PrintDefaults() }
	alpha := fs.Float64("alpha", 0.05, "family-wise significance level: the chance that unchanged code shows any significant change")
	correction := fs.String("correction", string(report.Holm), "correction for testing every metric of every group: holm, or none (each test at -alpha alone)")
	thresholdsFile := fs.String("thresholds", "", "thresholds per group and metric from a calibration (chaos calibrate); default: the baseline's thresholds.json, if it has one")
	th := thresholds{}
	fs.Var(th, "threshold", "NAME=VALUE: how much worse a metric may get before a significant change is a regression; VALUE is 20% (relative), 500 (absolute, in the metric's unit) or both (20%,500); NAME default sets the others' (default 10%); repeatable")
	out := fs.String("o", "", "also write the comparison (Markdown) to this file")
	jsonOut := fs.String("json", "", "also write the comparison as JSON to this file: per metric both sides' median, min, max, quartiles and samples, the change, the p-value and the verdict, and whether the machines differ")
	var cf checkFlags
	cf.register(fs)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return cli.Usagef("compare: expected BASELINE and CANDIDATE, got %d arguments", fs.NArg())
	}
	if *alpha <= 0 || *alpha >= 1 {
		return cli.Usagef("-alpha: %g (expected a level between 0 and 1, such as 0.05)", *alpha)
	}
	if c := report.Correction(*correction); c != report.Holm && c != report.NoCorrection {
		return cli.Usagef("-correction %s: expected %s or %s", clip.Quote(*correction), report.Holm, report.NoCorrection)
	}
	cal, err := readThresholds(*thresholdsFile, fs.Arg(0))
	if err != nil {
		return cli.Usage(err)
	}
	opts, err := cf.options()
	if err != nil {
		return err
	}
	if *out != "" && *out == *jsonOut {
		return cli.Usagef("-o and -json: both %s (expected two files)", clip.Quote(*out))
	}
	for _, o := range []struct{ flag, path string }{{"-o", *out}, {"-json", *jsonOut}} {
		if err := checkNewFile(o.flag, o.path); err != nil {
			return cli.Usage(err)
		}
	}
	lo := report.LoadOptions{Analyze: analyzer(opts)}
	// Both folders are checked, then loaded (analysing, in memory, the
	// cells without a summary), before anything is written: bad input on
	// either side leaves both as they were.
	for i, what := range []string{"baseline", "candidate"} {
		if err := report.CheckInput(fs.Arg(i), lo); err != nil {
			return cli.Usage(fmt.Errorf("%s: %w", what, err))
		}
	}
	base, cand, err := loadSides(fs.Arg(0), fs.Arg(1), lo)
	if err != nil {
		return err
	}
	for _, r := range []*report.Run{base, cand} {
		if err := r.WriteSummaries(); err != nil {
			return err
		}
	}
	co := report.CompareOptions{Alpha: *alpha, Correction: report.Correction(*correction), Thresholds: map[string]report.Threshold{}}
	if cal != nil {
		co.GroupThresholds, co.Thresholds = cal.Groups, cal.Metrics
	}
	for k, v := range th {
		if k == "default" {
			v := v
			co.Default = &v
			continue
		}
		co.Thresholds[k] = v
	}
	c := report.Compare(base, cand, co)
	var b bytes.Buffer
	if err := report.WriteComparison(&b, c); err != nil {
		return err
	}
	if _, err := os.Stdout.Write(b.Bytes()); err != nil {
		return err
	}
	if *out != "" {
		if err := runfolder.CreateFile(*out, b.Bytes()); err != nil {
			return err
		}
	}
	if *jsonOut != "" {
		var j bytes.Buffer
		if err := report.WriteComparisonJSON(&j, c); err != nil {
			return err
		}
		if err := runfolder.CreateFile(*jsonOut, j.Bytes()); err != nil {
			return err
		}
	}
	if n := c.Regressions(); n > 0 {
		return &cli.ExitError{Status: cli.ExitFailure, Err: fmt.Errorf("%d regression(s)", n)}
	}
	return nil
}

// loadSides loads the baseline and the candidate. When their summaries
// come from different revisions of the analysis and both keep their
// histories, both are analysed again with this build, so that every
// metric means the same on both sides.
func loadSides(baseDir, candDir string, lo report.LoadOptions) (base, cand *report.Run, err error) {
	load := func(lo report.LoadOptions) error {
		if base, err = report.Load(baseDir, lo); err != nil {
			return cli.Usage(fmt.Errorf("baseline: %w", err))
		}
		if cand, err = report.Load(candDir, lo); err != nil {
			return cli.Usage(fmt.Errorf("candidate: %w", err))
		}
		return nil
	}
	if err := load(lo); err != nil {
		return nil, nil, err
	}
	if report.SameAnalysis(base, cand) || !base.Reanalysable() || !cand.Reanalysable() {
		return base, cand, nil
	}
	fmt.Fprintf(os.Stderr, "compare: the two sides were analysed by different revisions of the analysis; analysing both again with this build\n")
	lo.Reanalyze = true
	if err := load(lo); err != nil {
		return nil, nil, err
	}
	return base, cand, nil
}

// readThresholds reads a calibration's thresholds: from path, or when
// path is empty from the baseline's thresholds.json if it has one (nil
// when it has none).
func readThresholds(path, baseline string) (*report.Calibrated, error) {
	explicit := path != ""
	if !explicit {
		path = filepath.Join(baseline, report.ThresholdsFile)
	}
	b, err := runfolder.ReadFile(path, runfolder.MaxRecordSize)
	if err != nil {
		if !explicit && errors.Is(err, iofs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("-thresholds: %w", err)
	}
	return report.ParseThresholds(path, b)
}
