package report

import (
	"image/color"
	"math"
	"strings"

	"github.com/chaosbench/chaosbench/internal/summary"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is a qualitative palette that stays readable in print and for
// the common forms of colour blindness (Okabe and Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{120, 120, 120, 255}, // grey
	color.RGBA{240, 228, 66, 255},  // yellow
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

var (
	windowFill = color.NRGBA{230, 57, 70, 38}
	markColor  = color.RGBA{200, 40, 40, 255}
	gridColor  = color.RGBA{225, 225, 225, 255}
)

// sans sets a text style to the sans-serif face at a size.
func sans(ts *text.Style, size float64) {
	ts.Font.Typeface, ts.Font.Variant = "Liberation", "Sans"
	ts.Font.Size = vg.Points(size)
}

// newPlot returns a plot in the house style.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	sans(&p.Title.TextStyle, 10.5)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle, 9)
		sans(&a.Tick.Label, 8)
		a.Tick.Marker = compactTicks{}
	}
	sans(&p.Legend.TextStyle, 8)
	p.Legend.Top = true
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(g)
	return p
}

// grid draws plots in a grid of rows and columns.
func grid(plots [][]*plot.Plot) func(dc draw.Canvas) error {
	return func(dc draw.Canvas) error {
		rows := len(plots)
		cols := 0
		for _, r := range plots {
			cols = max(cols, len(r))
		}
		for i := range plots {
			for len(plots[i]) < cols {
				plots[i] = append(plots[i], nil)
			}
		}
		t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		canvases := plot.Align(plots, t, dc)
		for j := range plots {
			for i, p := range plots[j] {
				if p != nil {
					p.Draw(canvases[j][i])
				}
			}
		}
		return nil
	}
}

func single(p *plot.Plot) func(dc draw.Canvas) error {
	return func(dc draw.Canvas) error { p.Draw(dc); return nil }
}

func emptyPlot(title, why string) *plot.Plot {
	p := newPlot(title, "", "")
	p.HideAxes()
	l, _ := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 0.5, Y: 0.5}}, Labels: []string{why}})
	if l != nil {
		sans(&l.TextStyle[0], 10)
		l.TextStyle[0].XAlign = -0.5
		p.Add(l)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	return p
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}
}

func shortKey(k Key) string {
	return k.Strategy + "\n" + k.CommitPolicy + "\n" + k.Client
}

func rotateX(p *plot.Plot, n int) {
	p.X.Tick.Label.Font.Size = vg.Points(7.5)
	if n > 8 {
		p.X.Tick.Label.Rotation = math.Pi / 5
		p.X.Tick.Label.XAlign = -1
	}
}

func shortLabel(d summary.Disruption) string {
	if d.Cause == "chaos" {
		return strings.TrimSpace(d.Action + " " + d.Target)
	}
	return d.Trigger
}
