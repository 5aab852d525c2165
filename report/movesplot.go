package report

import (
	"fmt"
	"math"

	"github.com/chaosbench/chaosbench/internal/summary"
	"gonum.org/v1/plot/vg"
)

func movesFigure(r *Run) (*Figure, error) {
	f := &Figure{Name: "moves", Title: "Partitions moved per rebalance", W: 9 * vg.Inch, H: 4 * vg.Inch}
	var names []string
	moved, least := []float64{}, []float64{}
	for _, g := range r.Groups {
		names = append(names, shortKey(g.Key))
		var ms, ls []float64
		for _, c := range g.Cells {
			var mv, mn float64
			n := 0
			for _, d := range c.S.Disruptions {
				if d.MovementKnown && d.MovementIn == 0 && !summary.PreSteady(d.Phase) {
					mv += float64(d.Moved)
					mn += float64(d.MinMoves)
					n++
				}
			}
			if n > 0 {
				ms = append(ms, mv/float64(n))
				ls = append(ls, mn/float64(n))
			}
		}
		moved = append(moved, zeroNaN(Median(ms)))
		least = append(least, zeroNaN(Median(ls)))
	}
	p := newPlot("Partitions moved per rebalance, against the minimum a balanced assignment needed (mean per disruption)", "", "partitions")
	if err := bars(p, names, []string{"moved", "minimum"}, [][]float64{moved, least}, []int{0, 6}); err != nil {
		return f, err
	}
	rotateX(p, len(names))
	f.draw = single(p)
	return f, nil
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func cellMovesFigure(name, label string, c *Cell) (*Figure, error) {
	f := &Figure{Name: "moves-" + name, Title: "Partitions moved: " + label, W: 8 * vg.Inch, H: 3.4 * vg.Inch}
	var names []string
	var moved, least []float64
	for _, d := range c.S.Disruptions {
		if !d.MovementKnown || d.MovementIn > 0 {
			continue
		}
		names = append(names, fmt.Sprintf("#%d %s", d.ID, shortLabel(d)))
		moved = append(moved, float64(d.Moved))
		least = append(least, float64(d.MinMoves))
	}
	if len(names) == 0 {
		f.draw = single(emptyPlot(f.Title, "no settled rebalance"))
		return f, nil
	}
	p := newPlot(f.Title+" (per disruption)", "", "partitions")
	if err := bars(p, names, []string{"moved", "minimum"}, [][]float64{moved, least}, []int{0, 6}); err != nil {
		return f, err
	}
	rotateX(p, len(names))
	f.draw = single(p)
	return f, nil
}
