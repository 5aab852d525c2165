package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/chaosbench/chaosbench/internal/check"
)

// Figure is one plot (or a grid of plots), drawn on demand as PNG or SVG.
type Figure struct {
	Name  string // file name without extension: "timeline", "timeline-sticky.sync-batch.franz"
	Title string
	W, H  vg.Length
	draw  func(dc draw.Canvas) error
}

// PNG writes the figure as a PNG at 96 dpi.
func (f *Figure) PNG(w io.Writer) error {
	c := vgimg.NewWith(vgimg.UseWH(f.W, f.H), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	if err := f.draw(draw.New(c)); err != nil {
		return err
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// SVG writes the figure as an SVG.
func (f *Figure) SVG(w io.Writer) error {
	c := vgsvg.New(f.W, f.H)
	if err := f.draw(draw.New(c)); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

// SVGBytes renders the figure as SVG in memory.
func (f *Figure) SVGBytes() ([]byte, error) {
	var b bytes.Buffer
	err := f.SVG(&b)
	return b.Bytes(), err
}

type figureRef struct{ name, title string }

// sideBySideFigures are the run's figures, every strategy in one.
var sideBySideFigures = []figureRef{
	{"timeline", "throughput and lag over time"},
	{"pause", "partition pause distribution"},
	{"duplicates", "duplicates per commit policy"},
	{"skew", "records per partition"},
	{"latency", "latency percentiles"},
	{"moves", "partitions moved per rebalance"},
}

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

// compactTicks are gonum's default ticks, labelled compactly: 0, 2.5k,
// 5k, 1.2M.
type compactTicks struct{}

func (compactTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = compact(ts[i].Value)
		}
	}
	return ts
}

func compact(v float64) string {
	a := math.Abs(v)
	f := func(x float64, suffix string) string {
		return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) + suffix
	}
	switch {
	case a >= 1e9:
		return f(v/1e9, "G")
	case a >= 1e6:
		return f(v/1e6, "M")
	case a >= 1e4:
		return f(v/1e3, "k")
	}
	return f(v, "")
}

func single(p *plot.Plot) func(dc draw.Canvas) error {
	return func(dc draw.Canvas) error { p.Draw(dc); return nil }
}

// Figures builds every figure of a run: the side-by-side ones first, then
// each cell's.
func Figures(r *Run) ([]*Figure, error) {
	var figs []*Figure
	add := func(f *Figure, err error) error {
		if err != nil {
			return fmt.Errorf("figure %s: %w", f.Name, err)
		}
		figs = append(figs, f)
		return nil
	}
	reps := representatives(r)
	if err := add(timelineFigure("timeline", "Throughput and lag over time (red: disruption windows, dashed: chaos steps)", reps)); err != nil {
		return nil, err
	}
	for _, b := range []func(*Run) (*Figure, error){pauseFigure, duplicatesFigure, skewFigure, latencyFigure, movesFigure} {
		if err := add(b(r)); err != nil {
			return nil, err
		}
	}
	for _, c := range r.ordered() {
		name := CellSlug(c)
		label := cellName(c)
		for _, f := range []func() (*Figure, error){
			func() (*Figure, error) {
				return timelineFigure("timeline-"+name, "Throughput and lag over time: "+label, []labelled{{label, c, 0}})
			},
			func() (*Figure, error) { return cellPauseFigure(name, label, c) },
			func() (*Figure, error) { return cellDuplicatesFigure(name, label, c) },
			func() (*Figure, error) { return cellSkewFigure(name, label, c) },
			func() (*Figure, error) { return cellLatencyFigure(name, label, c) },
			func() (*Figure, error) { return cellMovesFigure(name, label, c) },
		} {
			if err := add(f()); err != nil {
				return nil, err
			}
		}
	}
	return figs, nil
}

// CellSlug is a cell's name in file names.
func CellSlug(c *Cell) string {
	s := c.S.Cell
	name := s.Strategy + "." + s.CommitPolicy + "." + s.Client
	if s.Iteration > 0 || strings.Contains(c.Rel, "iter") {
		name += "." + strconv.Itoa(s.Iteration)
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\\' {
			return '_'
		}
		return r
	}, name)
}

type labelled struct {
	label string
	c     *Cell
	color int
}

// representatives returns one cell per group (its first iteration), with
// the group's colour.
func representatives(r *Run) []labelled {
	var out []labelled
	for i, g := range r.Groups {
		label := g.Key.String()
		if len(g.Cells) > 1 {
			label += fmt.Sprintf(" (iteration %d of %d)", g.Cells[0].S.Cell.Iteration, len(g.Cells))
		}
		out = append(out, labelled{label, g.Cells[0], i})
	}
	return out
}

// series turns timeline bins into at most maxPoints points: a rate
// (perSecond) averaged over at least minSpanMs, or a level (the last value
// of each span).
func series(tl check.Timeline, counts []int64, perSecond bool, maxPoints int, minSpanMs float64) plotter.XYs {
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
func shadeWindows(p *plot.Plot, s *check.Summary, ymax float64) {
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
func markSteps(p *plot.Plot, s *check.Summary, ymax float64, labels bool) error {
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

// headlinePauses returns the finished pauses of the headline disruptions
// (not warmup), in ms.
func headlinePauses(s *check.Summary) []float64 {
	warm := map[int]bool{}
	for _, d := range s.Disruptions {
		if check.PreSteady(d.Phase) {
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

// niceBelow and niceAbove round to the 1-2-5 sequence, for axis bounds.
func niceBelow(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if d*m <= v {
			return d * m
		}
	}
	return d
}

func niceAbove(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if d*m >= v {
			return d * m
		}
	}
	return d * 10
}

// msTicks labels a log axis of milliseconds readably: 1 ms … 10 s.
type msTicks struct{}

func (msTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi*10; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v < lo*0.999 || v > hi*1.001 {
				continue
			}
			label := FormatMs(v)
			label = strings.Replace(label, ".0 s", " s", 1)
			if m == 2 && hi/lo > 1000 {
				label = "" // a wide range: 1 and 5 are enough
			}
			ts = append(ts, plot.Tick{Value: v, Label: label})
		}
	}
	if len(ts) < 2 {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	return ts
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}
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

func shortLabel(d check.Disruption) string {
	if d.Cause == "chaos" {
		return strings.TrimSpace(d.Action + " " + d.Target)
	}
	return d.Trigger
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
	sort.SliceStable(pols, func(i, j int) bool { return policyRank(pols[i]) < policyRank(pols[j]) })
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

func skewPlot(title string, s *check.Summary, ci int) (*plot.Plot, error) {
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

// intTicks puts ticks on integers only (partitions).
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Pow(10, math.Floor(math.Log10(math.Max(hi-lo, 1))))/2)
	if (hi-lo)/step > 12 {
		step *= 2
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return ts
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

// percentileScale spreads percentiles the way latency plots do: by the
// number of nines, log10(1/(1-p/100)).
type percentileScale struct{}

func (percentileScale) Normalize(min, max, x float64) float64 {
	t := func(v float64) float64 { return math.Log10(1 / (1 - math.Min(v, 99.999)/100)) }
	lo, hi := t(min), t(max)
	if hi == lo {
		return 0
	}
	return (t(x) - lo) / (hi - lo)
}

type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range []float64{50, 75, 90, 99, 99.9, 99.99} {
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64) + "%"})
		}
	}
	return ts
}

func latencyLines(p *plot.Plot, label string, l check.LatencySummary, ci int, dashed bool) error {
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
				if d.MovementKnown && d.MovementIn == 0 && !check.PreSteady(d.Phase) {
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
