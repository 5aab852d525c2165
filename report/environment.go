package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Environment is where a set of cells ran, as far as a measurement depends
// on it: the machine (cores, CPU model, memory, OS and architecture) and
// the cluster (provider, Kafka release). Pauses, latency and recovery are
// measured in wall-clock time on that machine, so a baseline judges a
// candidate fairly only from the same kind of machine.
type Environment struct {
	OS       string  `json:"os"`
	Arch     string  `json:"arch"`
	CPUs     int     `json:"cpus"`
	CPUModel string  `json:"cpu_model,omitempty"` // "" where not recorded
	MemGiB   float64 `json:"mem_gib"`             // rounded to a tenth
	Provider string  `json:"provider"`
	Kafka    string  `json:"kafka_version"`
}

func (e Environment) String() string {
	model := e.CPUModel
	if model == "" {
		model = "CPU model not recorded"
	}
	return fmt.Sprintf("%d CPUs (%s), %.1f GiB, %s/%s, %s cluster, Kafka %s", e.CPUs, model, e.MemGiB, e.OS, e.Arch, e.Provider, e.Kafka)
}

// environmentOf returns a cell's environment; ok is false for a cell
// without a record.
func environmentOf(c *Cell) (Environment, bool) {
	r := c.Record
	if r == nil {
		return Environment{}, false
	}
	m := r.Machine
	return Environment{OS: m.OS, Arch: m.Arch, CPUs: m.CPUs, CPUModel: m.CPUModel,
		MemGiB:   math.Round(float64(m.MemBytes)/(1<<30)*10) / 10,
		Provider: r.Cluster.Provider, Kafka: r.Cluster.KafkaVersion}, true
}

// Environments returns the distinct environments of a run's cells, in the
// order they first appear.
func (r *Run) Environments() []Environment {
	var out []Environment
	for _, c := range r.Cells {
		if e, ok := environmentOf(c); ok && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// EnvironmentComparison says whether a baseline and a candidate ran in the
// same environment, and if not, how they differ.
type EnvironmentComparison struct {
	Same      bool          `json:"same"`
	Baseline  []Environment `json:"baseline"`
	Candidate []Environment `json:"candidate"`
	// Differences name each property that differs: "CPUs: 2 vs 4".
	Differences []string `json:"differences,omitempty"`
	// Notes say what could not be compared (a CPU model not recorded, a
	// side that records no environment).
	Notes []string `json:"notes,omitempty"`
}

// compareEnvironments compares the environments of two sets of cells. A
// CPU model recorded on one side only is noted, not counted as a
// difference: records written before the model was recorded lack it.
func compareEnvironments(base, cand *Run) EnvironmentComparison {
	ec := EnvironmentComparison{Baseline: base.Environments(), Candidate: cand.Environments()}
	if ec.Baseline == nil {
		ec.Baseline = []Environment{}
	}
	if ec.Candidate == nil {
		ec.Candidate = []Environment{}
	}
	if len(ec.Baseline) == 0 || len(ec.Candidate) == 0 {
		ec.Notes = append(ec.Notes, "a side records no environment (cell.json without a machine record): whether the machines are the same is unknown")
		return ec
	}
	values := func(es []Environment, get func(Environment) string) []string {
		var out []string
		for _, e := range es {
			if v := get(e); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, p := range []struct {
		name string
		get  func(Environment) string
	}{
		{"OS and architecture", func(e Environment) string { return e.OS + "/" + e.Arch }},
		{"CPUs", func(e Environment) string { return fmt.Sprint(e.CPUs) }},
		{"CPU model", func(e Environment) string { return e.CPUModel }},
		{"memory", func(e Environment) string { return fmt.Sprintf("%.1f GiB", e.MemGiB) }},
		{"cluster provider", func(e Environment) string { return e.Provider }},
		{"Kafka", func(e Environment) string { return e.Kafka }},
	} {
		b, c := values(ec.Baseline, p.get), values(ec.Candidate, p.get)
		if p.name == "CPU model" && (slices.Contains(b, "") || slices.Contains(c, "")) {
			if !(len(b) == 1 && b[0] == "" && len(c) == 1 && c[0] == "") {
				ec.Notes = append(ec.Notes, "the CPU model is not recorded on one side (older records): compared without it")
			}
			continue
		}
		if !slices.Equal(b, c) {
			ec.Differences = append(ec.Differences, fmt.Sprintf("%s: %s vs %s", p.name, strings.Join(b, ", "), strings.Join(c, ", ")))
		}
	}
	ec.Same = len(ec.Differences) == 0
	return ec
}
