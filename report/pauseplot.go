package report

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/summary"
	"gonum.org/v1/plot/vg"
)

// headlinePauses returns the finished pauses of the headline disruptions
// (not warmup), in ms.
func headlinePauses(s *summary.Summary) []float64 {
	warm := map[int]bool{}
	for _, d := range s.Disruptions {
		if summary.PreSteady(d.Phase) {
			warm[d.ID] = true
		}
	}
	var out []float64
	for _, p := range s.Pause.Pauses {
		if !p.Unfinished && !warm[p.Disruption] {
			out = append(out, p.Ms)
		}
	}
	return out
}

func pauseFigure(r *Run) (*Figure, error) {
	f := &Figure{Name: "pause", Title: "Partition pause distribution", W: 9 * vg.Inch, H: 4.2 * vg.Inch}
	var names []string
	var sets [][]float64
	var colors []int
	for i, g := range r.Groups {
		var vs []float64
		for _, c := range g.Cells {
			vs = append(vs, headlinePauses(c.S)...)
		}
		names = append(names, shortKey(g.Key))
		sets = append(sets, vs)
		colors = append(colors, i)
	}
	p := newPlot("Partition pause per strategy: every partition of every disruption (box: quartiles)", "", "pause")
	if err := boxes(p, names, sets, colors); err != nil {
		return f, err
	}
	rotateX(p, len(names))
	f.draw = single(p)
	return f, nil
}

func cellPauseFigure(name, label string, c *Cell) (*Figure, error) {
	f := &Figure{Name: "pause-" + name, Title: "Partition pause: " + label, W: 8 * vg.Inch, H: 3.6 * vg.Inch}
	s := c.S
	byD := map[int][]float64{}
	for _, p := range s.Pause.Pauses {
		if !p.Unfinished {
			byD[p.Disruption] = append(byD[p.Disruption], p.Ms)
		}
	}
	var names []string
	var sets [][]float64
	var colors []int
	for _, d := range s.Disruptions {
		names = append(names, fmt.Sprintf("#%d %s", d.ID, shortLabel(d)))
		sets = append(sets, byD[d.ID])
		colors = append(colors, 0)
	}
	if len(names) == 0 {
		f.draw = single(emptyPlot(f.Title, "no disruption"))
		return f, nil
	}
	p := newPlot(f.Title+" (per disruption)", "", "pause")
	if err := boxes(p, names, sets, colors); err != nil {
		return f, err
	}
	rotateX(p, len(names))
	f.draw = single(p)
	return f, nil
}
