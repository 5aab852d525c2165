package report

import (
	"math"

	"github.com/chaosbench/chaosbench/internal/sweep"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The capacity report's figures: throughput against members per series
// (measured medians with their min – max over the iterations, the model
// dashed), and the pauses of crashes and deploys against members.

// CapacityFigures returns the capacity report's figures.
func CapacityFigures(j *sweep.Judgement) ([]*Figure, error) {
	var figs []*Figure
	for _, b := range []func(*sweep.Judgement) (*Figure, error){throughputFigure, pauseByMembersFigure} {
		f, err := b(j)
		if err != nil {
			return nil, err
		}
		if f != nil {
			figs = append(figs, f)
		}
	}
	return figs, nil
}

// spreadPoints are a series' medians and their ranges.
type spreadPoints struct {
	xys    plotter.XYs
	lo, hi []float64
}

func (s spreadPoints) Len() int                    { return len(s.xys) }
func (s spreadPoints) XY(i int) (float64, float64) { return s.xys[i].X, s.xys[i].Y }
func (s spreadPoints) YError(i int) (float64, float64) {
	return s.xys[i].Y - s.lo[i], s.hi[i] - s.xys[i].Y
}
func (s *spreadPoints) add(x float64, sp Spread) {
	s.xys = append(s.xys, plotter.XY{X: x, Y: sp.Median})
	s.lo = append(s.lo, sp.Min)
	s.hi = append(s.hi, sp.Max)
}
func (s spreadPoints) empty() bool      { return len(s.xys) == 0 }
func (s spreadPoints) top() (v float64) { return slicesMax(s.hi) }
func slicesMax(xs []float64) (m float64) {
	for _, x := range xs {
		if !math.IsNaN(x) {
			m = math.Max(m, x)
		}
	}
	return m
}

// addSpread draws a series: a line through the medians, points, and the
// min – max of each as an error bar.
func addSpread(p *plot.Plot, sp spreadPoints, ci int, dashed bool, label string) error {
	l, pts, err := plotter.NewLinePoints(sp.xys)
	if err != nil {
		return err
	}
	l.Color, pts.Color = colorOf(ci), colorOf(ci)
	pts.Radius = vg.Points(2.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l, pts)
	if sp.lo != nil {
		eb, err := plotter.NewYErrorBars(sp)
		if err != nil {
			return err
		}
		eb.Color = colorOf(ci)
		p.Add(eb)
	}
	if label != "" {
		p.Legend.Add(label, l, pts)
	}
	return nil
}

func throughputFigure(j *sweep.Judgement) (*Figure, error) {
	f := &Figure{Name: "capacity-throughput", Title: "Throughput against members: measured (solid, median and min – max over the iterations) and the model (dashed)", W: 9 * vg.Inch, H: 4.5 * vg.Inch}
	p := newPlot(f.Title, "members", "records/s sustained")
	p.Legend.Top, p.Legend.Left = true, true
	top := 0.0
	any := false
	for i, s := range j.Series {
		var meas, model spreadPoints
		for _, cf := range s.Configs {
			if cf.Capacity.N == 0 {
				continue
			}
			meas.add(float64(cf.Row.Members), cf.Capacity)
			if cf.Row.ModelCapacity > 0 {
				model.xys = append(model.xys, plotter.XY{X: float64(cf.Row.Members), Y: cf.Row.ModelCapacity})
				top = math.Max(top, cf.Row.ModelCapacity)
			}
		}
		if meas.empty() {
			continue
		}
		any = true
		top = math.Max(top, meas.top())
		if err := addSpread(p, meas, i, false, seriesLabel(s)); err != nil {
			return f, err
		}
		if !model.empty() {
			if err := addSpread(p, model, i, true, ""); err != nil {
				return f, err
			}
		}
	}
	if !any {
		return nil, nil
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.15, 1)
	p.X.Tick.Marker = intTicks{}
	f.draw = single(p)
	return f, nil
}

func pauseByMembersFigure(j *sweep.Judgement) (*Figure, error) {
	f := &Figure{Name: "capacity-pauses", Title: "Longest partition pause against members, at the target rate: after a crash (solid), in a deploy (dashed)", W: 9 * vg.Inch, H: 4 * vg.Inch}
	p := newPlot(f.Title, "members", "longest partition pause (ms)")
	p.Legend.Top, p.Legend.Left = true, true
	top := 0.0
	any := false
	for i, s := range j.Series {
		var crash, deploy spreadPoints
		for _, cf := range s.Configs {
			if cf.CrashPause.N > 0 {
				crash.add(float64(cf.Row.Members), cf.CrashPause)
			}
			if cf.DeployPause.N > 0 {
				deploy.add(float64(cf.Row.Members), cf.DeployPause)
			}
		}
		for k, sp := range []spreadPoints{crash, deploy} {
			if sp.empty() {
				continue
			}
			any = true
			top = math.Max(top, sp.top())
			label := ""
			if k == 0 || crash.empty() {
				label = seriesLabel(s)
			}
			if err := addSpread(p, sp, i, k == 1, label); err != nil {
				return f, err
			}
		}
	}
	if !any {
		return nil, nil
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.15, 1)
	p.X.Tick.Marker = intTicks{}
	f.draw = func(dc draw.Canvas) error { p.Draw(dc); return nil }
	return f, nil
}
