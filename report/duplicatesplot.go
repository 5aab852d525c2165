package report

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot/vg"

	"github.com/chaosbench/chaosbench/internal/vocab"
)

func duplicatesFigure(r *Run) (*Figure, error) {
	f := &Figure{Name: "duplicates", Title: "Duplicates per commit policy", W: 9 * vg.Inch, H: 4 * vg.Inch}
	var pols []string
	seen := map[string]bool{}
	for _, g := range r.Groups {
		if !seen[g.Key.CommitPolicy] {
			seen[g.Key.CommitPolicy] = true
			pols = append(pols, g.Key.CommitPolicy)
		}
	}
	sort.SliceStable(pols, func(i, j int) bool { return vocab.PolicyRank(pols[i]) < vocab.PolicyRank(pols[j]) })
	var strat []string
	sidx := map[string]int{}
	for _, g := range r.Groups {
		k := g.Key.Strategy + " · " + g.Key.Client
		if _, ok := sidx[k]; !ok {
			sidx[k] = len(strat)
			strat = append(strat, k)
		}
	}
	vals := make([][]float64, len(strat))
	for i := range vals {
		vals[i] = make([]float64, len(pols))
	}
	m, _ := MetricByName("duplicates")
	for _, g := range r.Groups {
		i := sidx[g.Key.Strategy+" · "+g.Key.Client]
		for j, pol := range pols {
			if pol == g.Key.CommitPolicy {
				if v := Median(m.Samples(g)); !math.IsNaN(v) {
					vals[i][j] = v
				}
			}
		}
	}
	colors := make([]int, len(strat))
	for i := range colors {
		colors[i] = i
	}
	p := newPlot("Records processed more than once, per commit policy and strategy (median over iterations)", "commit policy", "duplicates (records)")
	if err := bars(p, pols, strat, vals, colors); err != nil {
		return f, err
	}
	f.draw = single(p)
	return f, nil
}

func cellDuplicatesFigure(name, label string, c *Cell) (*Figure, error) {
	f := &Figure{Name: "duplicates-" + name, Title: "Duplicates: " + label, W: 8 * vg.Inch, H: 3.4 * vg.Inch}
	s := c.S
	if len(s.Disruptions) == 0 {
		f.draw = single(emptyPlot(f.Title, fmt.Sprintf("no disruption; %d duplicates", s.Duplicates.Count)))
		return f, nil
	}
	var names []string
	got, bound := make([]float64, 0), make([]float64, 0)
	for _, d := range s.Disruptions {
		names = append(names, fmt.Sprintf("#%d %s", d.ID, shortLabel(d)))
		got = append(got, float64(d.Duplicates))
		bound = append(bound, float64(d.UncommittedBound))
	}
	p := newPlot(f.Title+" (per disruption, against the uncommitted records that could come again)", "", "records")
	if err := bars(p, names, []string{"duplicates", "uncommitted bound"}, [][]float64{got, bound}, []int{1, 6}); err != nil {
		return f, err
	}
	rotateX(p, len(names))
	f.draw = single(p)
	return f, nil
}
