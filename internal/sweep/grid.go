// Package sweep is the offline side of capacity planning: the grid of a
// capacity sweep (`chaos sweep --vary members=2,4,8 --vary partitions=12,24`),
// the folders and the record it leaves, the workloads of its points; what
// a group driven to saturation sustained, read from a capacity run's
// history (the group's throughput, each member's rate, the hottest
// partition's), and what it did at the target rate, read from a target
// run's summaries; the table of every point's measurements
// (capacity.json), and its judgement against the team's targets: each
// configuration's targets, where adding members stops helping, the
// recommendation, the measurements against physics. docs/capacity.md
// defines every figure. The sweep itself runs on the chaos driver
// (runner.Sweep, for `chaos sweep`); the report renders the judgement
// (package report); the model of a production-size group is computed in
// package groupmodel.
// Nothing here reaches a cluster or runs the analysis: a target run's
// summary comes from a function the commands pass.
package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// A Dim is one dimension of the grid: a workload setting and the values it
// takes, in the order given.
type Dim struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// The dimensions a sweep can vary, by the name a Kafka user knows them by.
const (
	DimMembers        = "members"
	DimPartitions     = "partitions"
	DimStrategy       = "strategy"
	DimCommitPolicy   = "commit_policy"
	DimClient         = "client"
	DimMaxPollRecords = "max_poll_records"
)

// dims are the dimensions in the order point names list them.
var dims = []string{DimMembers, DimPartitions, DimStrategy, DimCommitPolicy, DimClient, DimMaxPollRecords}

// aliases are other names a user may give a dimension: the plural, the
// Kafka property, the consumer.
var aliases = map[string]string{
	"member": DimMembers, "consumers": DimMembers, "consumer": DimMembers,
	"partition":  DimPartitions,
	"strategies": DimStrategy, "partition.assignment.strategy": DimStrategy, "assignor": DimStrategy,
	"commit_policies": DimCommitPolicy, "commit-policy": DimCommitPolicy, "policy": DimCommitPolicy,
	"clients":          DimClient,
	"max.poll.records": DimMaxPollRecords, "max-poll-records": DimMaxPollRecords,
}

// ParseVary reads one --vary flag, NAME=V1,V2,...: a dimension and its
// values, each checked (a count in range, a name of the vocabulary).
func ParseVary(s string) (Dim, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(strings.ToLower(name))
	if !ok || name == "" || strings.TrimSpace(list) == "" {
		return Dim{}, fmt.Errorf("--vary %q: expected NAME=V1,V2,... with NAME one of %s (e.g. members=2,4,8)", s, strings.Join(dims, ", "))
	}
	if a, ok := aliases[name]; ok {
		name = a
	}
	if !slices.Contains(dims, name) {
		return Dim{}, fmt.Errorf("--vary %s: unknown setting %q: expected one of %s", s, name, strings.Join(dims, ", "))
	}
	d := Dim{Name: name}
	seen := map[string]bool{}
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if err := checkValue(name, v); err != nil {
			return Dim{}, fmt.Errorf("--vary %s: %w", s, err)
		}
		if seen[v] {
			return Dim{}, fmt.Errorf("--vary %s: %s given twice", s, v)
		}
		seen[v] = true
		d.Values = append(d.Values, v)
	}
	return d, nil
}

// checkValue checks one value of a dimension.
func checkValue(dim, v string) error {
	count := func(what string, lo, hi int) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%q: expected %s, an integer from %d to %d", v, what, lo, hi)
		}
		return nil
	}
	name := func(known []string) error {
		if !slices.Contains(known, v) {
			return fmt.Errorf("%q: expected one of %s", v, strings.Join(known, ", "))
		}
		return nil
	}
	switch dim {
	case DimMembers:
		return count("a number of members", 1, workloads.MaxMembers)
	case DimPartitions:
		return count("a partition count", 1, workloads.MaxPartitions)
	case DimMaxPollRecords:
		return count("max.poll.records", 1, 1_000_000)
	case DimStrategy:
		return name(vocab.StrategyNames())
	case DimCommitPolicy:
		return name(vocab.PolicyNames())
	case DimClient:
		return name(vocab.ClientNames())
	}
	return fmt.Errorf("unknown setting %s", dim)
}

// Setting is one dimension's value at a point.
type Setting struct {
	Dim   string `json:"dim"`
	Value string `json:"value"`
}

// Point is one configuration of the grid: one cell of the workload with
// the grid's settings.
type Point struct {
	// Name is the point's folder in the sweep: m4_p12_cooperative-sticky.
	Name     string    `json:"name"`
	Settings []Setting `json:"settings"`
}

// Get returns the value of a dimension at the point ("" when the grid
// does not vary it).
func (p Point) Get(dim string) string {
	for _, s := range p.Settings {
		if s.Dim == dim {
			return s.Value
		}
	}
	return ""
}

// Label is the point for people: members=4 partitions=12 strategy=range.
func (p Point) Label() string {
	var parts []string
	for _, s := range p.Settings {
		parts = append(parts, s.Dim+"="+s.Value)
	}
	return strings.Join(parts, " ")
}

// Variation is the point as a change of the workload.
func (p Point) Variation() workloads.Variation {
	atoi := func(dim string) int {
		n, _ := strconv.Atoi(p.Get(dim))
		return n
	}
	return workloads.Variation{Members: atoi(DimMembers), Partitions: atoi(DimPartitions),
		MaxPollRecords: atoi(DimMaxPollRecords), Strategy: p.Get(DimStrategy),
		CommitPolicy: p.Get(DimCommitPolicy), Client: p.Get(DimClient)}
}

// Grid returns the dimensions of a sweep of spec: those given (a
// dimension at most once), then, so that each point is one cell, the
// workload's strategies, commit policies and clients where it lists more
// than one and the grid does not vary them.
func Grid(spec *workloads.Spec, given []Dim) ([]Dim, error) {
	var out []Dim
	seen := map[string]bool{}
	for _, d := range given {
		if seen[d.Name] {
			return nil, fmt.Errorf("--vary %s: given twice: list every value in one --vary %s=V1,V2,...", d.Name, d.Name)
		}
		seen[d.Name] = true
		out = append(out, d)
	}
	implicit := func(dim string, values []string) {
		if !seen[dim] && len(values) > 1 {
			out = append(out, Dim{Name: dim, Values: slices.Clone(values)})
		}
	}
	implicit(DimStrategy, spec.Strategies)
	implicit(DimCommitPolicy, spec.CommitPolicies)
	implicit(DimClient, spec.Clients)
	if len(out) == 0 {
		return nil, fmt.Errorf("nothing to vary: expected at least one --vary NAME=V1,V2,... (%s)", strings.Join(dims, ", "))
	}
	n := 1
	for _, d := range out {
		if n *= len(d.Values); n > MaxPoints {
			return nil, fmt.Errorf("the grid has more than %d points (%s): expected at most %d, each point is two runs of the workload", MaxPoints, gridSizes(out), MaxPoints)
		}
	}
	return out, nil
}

// MaxPoints bounds a grid's points: each is two runs of the workload (a
// capacity run and a target run) of a minute or so, and a sweep of a
// thousand points already holds a host for days.
const MaxPoints = 1000

// gridSizes renders each dimension's number of values: members 4 x
// partitions 3.
func gridSizes(grid []Dim) string {
	parts := make([]string, len(grid))
	for i, d := range grid {
		parts[i] = fmt.Sprintf("%s %d", d.Name, len(d.Values))
	}
	return strings.Join(parts, " x ")
}

// Points returns every point of the grid: the product of the dimensions,
// the first varying slowest.
func Points(grid []Dim) []Point {
	pts := []Point{{}}
	for _, d := range grid {
		var next []Point
		for _, p := range pts {
			for _, v := range d.Values {
				q := Point{Settings: append(slices.Clone(p.Settings), Setting{d.Name, v})}
				next = append(next, q)
			}
		}
		pts = next
	}
	for i := range pts {
		pts[i].Name = pointName(pts[i])
	}
	return pts
}

// pointName is a point's folder name: its settings in the dimensions'
// order, counts prefixed by their letter (m4, p12, b500), names as they
// are, joined by '_'.
func pointName(p Point) string {
	var parts []string
	for _, dim := range dims {
		v := p.Get(dim)
		if v == "" {
			continue
		}
		switch dim {
		case DimMembers:
			v = "m" + v
		case DimPartitions:
			v = "p" + v
		case DimMaxPollRecords:
			v = "b" + v
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "_")
}
