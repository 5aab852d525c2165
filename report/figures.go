package report

import (
	"fmt"
	"strconv"
	"strings"
)

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
