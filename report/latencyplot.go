package report

import (
	"fmt"
	"math"

	"github.com/chaosbench/chaosbench/internal/summary"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func latencyLines(p *plot.Plot, label string, l summary.LatencySummary, ci int, dashed bool) error {
	var xys plotter.XYs
	for _, pt := range l.Percentiles {
		if pt.P < 50 || pt.P > 99.99 {
			continue // the axis runs from the median: gonum widens it to the data
		}
		xys = append(xys, plotter.XY{X: pt.P, Y: math.Max(pt.Ms, 0.001)})
	}
	if len(xys) == 0 {
		return nil
	}
	ln, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	ln.Color, ln.Width = colorOf(ci), vg.Points(1.4)
	if dashed {
		ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(ln)
	p.Legend.Add(label, ln)
	return nil
}

func latencyPlot(title string) *plot.Plot {
	p := newPlot(title, "percentile", "produce-to-process latency")
	p.X.Scale = percentileScale{}
	p.X.Tick.Marker = percentileTicks{}
	p.X.Min, p.X.Max = 50, 99.99
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = msTicks{}
	// Curves rise to the right from a flat start: the lower right, just
	// above the steady state, is where they leave room.
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Inch / 3
	return p
}

func latencyFigure(r *Run) (*Figure, error) {
	f := &Figure{Name: "latency", Title: "Latency percentiles", W: 9 * vg.Inch, H: 4.6 * vg.Inch}
	p := latencyPlot("Latency percentiles (solid: steady state, dashed: disruption windows)")
	any := false
	for _, lc := range representatives(r) {
		l := lc.c.S.Latency
		if l.Steady.Count > 0 {
			any = true
			if err := latencyLines(p, lc.label, l.Steady, lc.color, false); err != nil {
				return f, err
			}
		}
		if l.Disruption.Count > 0 {
			any = true
			if err := latencyLines(p, lc.label+", disruptions", l.Disruption, lc.color, true); err != nil {
				return f, err
			}
		}
	}
	if !any {
		f.draw = single(emptyPlot(f.Title, "no latency recorded"))
		return f, nil
	}
	f.draw = single(p)
	return f, nil
}

func cellLatencyFigure(name, label string, c *Cell) (*Figure, error) {
	f := &Figure{Name: "latency-" + name, Title: "Latency: " + label, W: 8 * vg.Inch, H: 3.6 * vg.Inch}
	l := c.S.Latency
	if l.Steady.Count == 0 && l.Disruption.Count == 0 {
		f.draw = single(emptyPlot(f.Title, "no latency recorded"))
		return f, nil
	}
	p := latencyPlot(f.Title)
	if err := latencyLines(p, fmt.Sprintf("steady (%d records)", l.Steady.Count), l.Steady, 0, false); err != nil {
		return f, err
	}
	if err := latencyLines(p, fmt.Sprintf("disruption windows (%d records)", l.Disruption.Count), l.Disruption, 1, true); err != nil {
		return f, err
	}
	f.draw = single(p)
	return f, nil
}
