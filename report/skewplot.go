package report

import (
	"fmt"
	"image/color"
	"math"

	"github.com/chaosbench/chaosbench/internal/summary"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func skewPlot(title string, s *summary.Summary, ci int) (*plot.Plot, error) {
	p := newPlot(title, "partition", "records")
	vals := make(plotter.Values, len(s.Skew.RecordsPerPartition))
	for i, v := range s.Skew.RecordsPerPartition {
		vals[i] = float64(v)
	}
	if len(vals) == 0 {
		return emptyPlot(title, "no records"), nil
	}
	w := vg.Points(math.Max(1.5, math.Min(16, 420/float64(len(vals)))))
	b, err := plotter.NewBarChart(vals, w)
	if err != nil {
		return nil, err
	}
	b.Color, b.LineStyle.Width = colorOf(ci), 0
	p.Add(b)
	// The mean, for reference.
	var sum float64
	for _, v := range vals {
		sum += v
	}
	mean := sum / float64(len(vals))
	l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: mean}, {X: float64(len(vals)) - 0.5, Y: mean}})
	if err != nil {
		return nil, err
	}
	l.Color, l.Dashes = color.Black, []vg.Length{vg.Points(4), vg.Points(2)}
	p.Add(l)
	p.Title.Text = fmt.Sprintf("%s\nmax/mean %.2f, CV %.2f, hottest %.0f%% (dashed: mean)", title, s.Skew.MaxOverMean, s.Skew.CV, 100*s.Skew.HottestShare)
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.1, 1)
	p.X.Min, p.X.Max = -0.5, float64(len(vals))-0.5
	p.X.Tick.Marker = intTicks{}
	return p, nil
}

func skewFigure(r *Run) (*Figure, error) {
	reps := representatives(r)
	cols := 2
	if len(reps) == 1 {
		cols = 1
	}
	rowsN := (len(reps) + cols - 1) / cols
	f := &Figure{Name: "skew", Title: "Records per partition", W: 9 * vg.Inch, H: vg.Length(2.4*float64(max(rowsN, 1))+0.3) * vg.Inch}
	var rows [][]*plot.Plot
	for i, lc := range reps {
		p, err := skewPlot(lc.label, lc.c.S, lc.color)
		if err != nil {
			return f, err
		}
		if i%cols == 0 {
			rows = append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], p)
	}
	if len(rows) == 0 {
		rows = [][]*plot.Plot{{emptyPlot(f.Title, "no cells")}}
	}
	f.draw = grid(rows)
	return f, nil
}

func cellSkewFigure(name, label string, c *Cell) (*Figure, error) {
	f := &Figure{Name: "skew-" + name, Title: "Records per partition: " + label, W: 8 * vg.Inch, H: 3.2 * vg.Inch}
	p, err := skewPlot(f.Title, c.S, 0)
	if err != nil {
		return f, err
	}
	f.draw = single(p)
	return f, nil
}
