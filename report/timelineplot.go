package report

import (
	"image/color"
	"math"

	"github.com/chaosbench/chaosbench/internal/summary"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// series turns timeline bins into at most maxPoints points: a rate
// (perSecond) averaged over at least minSpanMs, or a level (the last value
// of each span).
func series(tl summary.Timeline, counts []int64, perSecond bool, maxPoints int, minSpanMs float64) plotter.XYs {
	n := len(counts)
	if n == 0 {
		return nil
	}
	f := max((n+maxPoints-1)/maxPoints, int(math.Ceil(minSpanMs/tl.BinMs)), 1)
	binS := tl.BinMs / 1000
	var xys plotter.XYs
	for i := 0; i < n; i += f {
		j := min(i+f, n)
		var v float64
		if perSecond {
			var s int64
			for _, c := range counts[i:j] {
				s += c
			}
			v = float64(s) / (float64(j-i) * binS)
		} else {
			v = float64(counts[j-1])
		}
		xys = append(xys, plotter.XY{X: float64(j) * binS, Y: v})
	}
	return xys
}

func timelineFigure(name, title string, cells []labelled) (*Figure, error) {
	f := &Figure{Name: name, Title: title, W: 9 * vg.Inch, H: vg.Length(1.9*float64(max(len(cells), 1))+0.5) * vg.Inch}
	var rows [][]*plot.Plot
	var xmax float64
	for _, lc := range cells {
		tl := lc.c.S.Timeline
		xmax = math.Max(xmax, float64(len(tl.Processed))*tl.BinMs/1000)
	}
	for i, lc := range cells {
		s := lc.c.S
		tl := s.Timeline
		thr := series(tl, tl.Processed, true, 600, 1000) // a rate: over a second at least
		lag := series(tl, tl.Lag, false, 600, 0)
		left := newPlot(lc.label, "", "records/s processed (1 s mean)")
		right := newPlot("lag", "", "records")
		if i == len(cells)-1 {
			left.X.Label.Text, right.X.Label.Text = "seconds since the start of the cell", "seconds since the start of the cell"
		}
		for k, pl := range []struct {
			p   *plot.Plot
			xys plotter.XYs
		}{{left, thr}, {right, lag}} {
			ymax := 1.0
			for _, xy := range pl.xys {
				ymax = math.Max(ymax, xy.Y)
			}
			ymax *= 1.15
			shadeWindows(pl.p, s, ymax)
			if len(pl.xys) > 0 {
				l, err := plotter.NewLine(pl.xys)
				if err != nil {
					return f, err
				}
				l.Color, l.Width = colorOf(lc.color), vg.Points(1.2)
				pl.p.Add(l)
			}
			if err := markSteps(pl.p, s, ymax, k == 0); err != nil {
				return f, err
			}
			pl.p.X.Min, pl.p.X.Max = 0, math.Max(xmax, 1)
			pl.p.Y.Min, pl.p.Y.Max = 0, ymax
		}
		rows = append(rows, []*plot.Plot{left, right})
	}
	if len(rows) == 0 {
		rows = [][]*plot.Plot{{emptyPlot(title, "no cells")}}
	}
	f.draw = grid(rows)
	return f, nil
}

// shadeWindows shades each disruption window (an unfinished one to the
// end of the timeline).
func shadeWindows(p *plot.Plot, s *summary.Summary, ymax float64) {
	tl := s.Timeline
	end := float64(len(tl.Processed)) * tl.BinMs / 1000
	for _, d := range s.Disruptions {
		x0 := float64(d.StartT-tl.StartT) / 1e9
		x1 := end
		if d.EndT != 0 {
			x1 = float64(d.EndT-tl.StartT) / 1e9
		}
		x1 = math.Max(x1, x0+tl.BinMs/1000) // at least a bin wide, to be seen
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: ymax}, {X: x0, Y: ymax}})
		if err != nil {
			continue
		}
		poly.Color = windowFill
		poly.LineStyle.Width = 0
		poly.LineStyle.Color = color.Transparent
		p.Add(poly)
	}
}

// markSteps draws a dashed line at each chaos step, labelled on the first
// panel.
func markSteps(p *plot.Plot, s *summary.Summary, ymax float64, labels bool) error {
	tl := s.Timeline
	var lx plotter.XYLabels
	for _, m := range tl.Marks {
		if m.Kind != "chaos" {
			continue
		}
		x := float64(m.T-tl.StartT) / 1e9
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: ymax}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = markColor, vg.Points(0.8), []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l)
		lx.XYs = append(lx.XYs, plotter.XY{X: x, Y: ymax * 0.97})
		lx.Labels = append(lx.Labels, " "+m.Label)
	}
	if labels && len(lx.XYs) > 0 {
		ls, err := plotter.NewLabels(lx)
		if err != nil {
			return err
		}
		for i := range ls.TextStyle {
			sans(&ls.TextStyle[i], 7.5)
			ls.TextStyle[i].Color = markColor
			ls.TextStyle[i].YAlign = -1 // hang below the point
		}
		p.Add(ls)
	}
	return nil
}
