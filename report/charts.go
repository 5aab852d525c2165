package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// boxes draws a box plot with its points beside it for each set of
// values, on a log scale when every value is positive.
func boxes(p *plot.Plot, names []string, sets [][]float64, colors []int) error {
	positive := true
	for _, vs := range sets {
		for _, v := range vs {
			if v <= 0 {
				positive = false
			}
		}
	}
	any := false
	for i, vs := range sets {
		if len(vs) == 0 {
			continue
		}
		any = true
		b, err := plotter.NewBoxPlot(vg.Points(18), float64(i), plotter.Values(vs))
		if err != nil {
			return err
		}
		b.FillColor = withAlpha(colorOf(colors[i]), 60)
		b.BoxStyle.Color = colorOf(colors[i])
		b.MedianStyle.Color = colorOf(colors[i])
		b.MedianStyle.Width = vg.Points(2)
		p.Add(b)
		pts := make(plotter.XYs, len(vs))
		for j, v := range vs {
			// Spread the points in a narrow band right of the box.
			pts[j] = plotter.XY{X: float64(i) + 0.25 + 0.1*float64(j%5)/5, Y: v}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = colorOf(colors[i])
		sc.GlyphStyle.Radius = vg.Points(1.6)
		p.Add(sc)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	if any && positive {
		lo, hi := math.Inf(1), 0.0
		for _, vs := range sets {
			for _, v := range vs {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = msTicks{}
		p.Y.Min, p.Y.Max = niceBelow(lo), niceAbove(hi*1.2)
	}
	return nil
}

// bars draws grouped bars: one group per x name, one bar per series.
func bars(p *plot.Plot, xnames []string, seriesNames []string, values [][]float64, colors []int) error {
	n := len(seriesNames)
	w := vg.Points(math.Max(4, math.Min(22, 260/float64(max(n*len(xnames), 1)))))
	for i := range seriesNames {
		b, err := plotter.NewBarChart(plotter.Values(values[i]), w)
		if err != nil {
			return err
		}
		b.Color = colorOf(colors[i])
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(n-1)/2) * w
		p.Add(b)
		if n > 1 {
			p.Legend.Add(seriesNames[i], b)
		}
	}
	p.NominalX(xnames...)
	p.X.Min, p.X.Max = -0.6, float64(len(xnames))-0.4
	top := 0.0
	for _, vs := range values {
		for _, v := range vs {
			top = math.Max(top, v)
		}
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.3, 1) // room for the legend
	return nil
}
