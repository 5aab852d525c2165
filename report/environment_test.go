package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// withMachine gives every cell of a run the same record.
func withMachine(r *Run, cpus int, model string) *Run {
	for _, g := range r.Groups {
		for _, c := range g.Cells {
			c.Record = &runfolder.Cell{Machine: runfolder.Machine{OS: "linux", Arch: "amd64", CPUs: cpus, CPUModel: model, MemBytes: 16 << 30},
				Cluster: runfolder.ClusterInfo{Provider: "local", KafkaVersion: "4.4.0"}}
			r.Cells = append(r.Cells, c)
		}
	}
	return r
}

// chaos compare says plainly when the two sides ran on different
// machines, in Markdown and in JSON; a CPU model missing on one side is
// a note, not a difference.
func TestCompareSaysWhenMachinesDiffer(t *testing.T) {
	k := Key{"sticky", "sync-batch", "franz"}
	mk := func(cpus int, model string) *Run {
		return withMachine(&Run{Dir: "d", Groups: []*Group{group(k, []float64{100, 110, 105}, []int64{1, 2, 3})}}, cpus, model)
	}
	c := Compare(mk(2, "Xeon"), mk(4, "EPYC"), CompareOptions{})
	if c.Environment.Same || len(c.Environment.Differences) != 2 {
		t.Fatalf("2 Xeon CPUs vs 4 EPYC: %+v", c.Environment)
	}
	var md, js bytes.Buffer
	if err := WriteComparison(&md, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Different machines", "CPUs: 2 vs 4", "CPU model: Xeon vs EPYC"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteComparisonJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	var j ComparisonJSON
	if err := json.Unmarshal(js.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if j.Environment.Same || len(j.Environment.Differences) != 2 || j.Environment.Baseline[0].CPUs != 2 {
		t.Errorf("compare.json environment: %+v", j.Environment)
	}

	same := Compare(mk(2, "Xeon"), mk(2, "Xeon"), CompareOptions{})
	md.Reset()
	WriteComparison(&md, same)
	if !same.Environment.Same || !strings.Contains(md.String(), "Same environment on both sides") {
		t.Errorf("the same machine: %+v\n%s", same.Environment, md.String())
	}
	old := Compare(mk(2, ""), mk(2, "Xeon"), CompareOptions{})
	if !old.Environment.Same || len(old.Environment.Notes) != 1 {
		t.Errorf("a CPU model recorded on one side only: %+v", old.Environment)
	}
	none := Compare(&Run{Groups: []*Group{group(k, []float64{1}, []int64{1})}}, mk(2, "Xeon"), CompareOptions{})
	if none.Environment.Same || len(none.Environment.Notes) != 1 {
		t.Errorf("a side without records: %+v", none.Environment)
	}
}

// compare.json holds, per metric, both sides' spread and samples, the
// change, the p-value and the verdict; what does not exist is null.
func TestComparisonJSON(t *testing.T) {
	k := Key{"sticky", "sync-batch", "franz"}
	base := &Run{Dir: "base", Groups: []*Group{group(k, []float64{100, 110, 105, 98, 102}, []int64{0, 0, 0, 0, 0})}}
	cand := &Run{Dir: "cand", Groups: []*Group{group(k, []float64{150, 160, 155, 149, 152}, []int64{1, 0, 2, 0, 1})}}
	var b bytes.Buffer
	if err := WriteComparisonJSON(&b, Compare(base, cand, CompareOptions{Correction: NoCorrection})); err != nil {
		t.Fatal(err)
	}
	var j ComparisonJSON
	if err := json.Unmarshal(b.Bytes(), &j); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if j.SchemaVersion != ComparisonSchemaVersion || j.Regressions != 3 || len(j.Groups) != 1 || j.Groups[0].Strategy != "sticky" ||
		j.Correction != "none" || j.Tests < 10 {
		t.Fatalf("compare.json: %s", b.String())
	}
	var p95, dups *MetricJSON
	for i, m := range j.Groups[0].Metrics {
		switch m.Name {
		case "pause_p95_ms":
			p95 = &j.Groups[0].Metrics[i]
		case "duplicates":
			dups = &j.Groups[0].Metrics[i]
		}
	}
	if p95 == nil || dups == nil {
		t.Fatal("metrics missing")
	}
	if *p95.Baseline.Median != 102 || *p95.Baseline.Min != 98 || *p95.Baseline.Max != 110 || *p95.Baseline.Q1 != 100 || *p95.Baseline.Q3 != 105 ||
		len(p95.Baseline.Samples) != 5 || *p95.Change != 50 || math.Abs(*p95.RelativeChange-50.0/102) > 1e-9 || *p95.PValue > 0.01 || *p95.PAdjusted != *p95.PValue || p95.Verdict != "regression" {
		t.Errorf("pause_p95_ms: %+v", p95)
	}
	if dups.RelativeChange != nil || *dups.Change != 1 {
		t.Errorf("duplicates from 0: relative change %v (want null), change %v", dups.RelativeChange, *dups.Change)
	}
	if !strings.Contains(b.String(), `"relative_change": null`) {
		t.Error("a relative change from zero is not null")
	}
}

func TestFormatSpread(t *testing.T) {
	m, _ := MetricByName("pause_p95_ms")
	if got := formatSpread(m, SpreadOf([]float64{100, 200, 300})); got != "200 ms (100 ms – 300 ms)" {
		t.Errorf("formatSpread: %q", got)
	}
	if got := formatSpread(m, SpreadOf([]float64{100})); got != "100 ms" {
		t.Errorf("formatSpread of one: %q", got)
	}
}
