// Package report turns the checkers' summaries into what people read:
// report.md (the strategies side by side, fit for a CI job summary),
// report.html (one self-contained page with every table and plot) and the
// plots themselves (gonum/plot, PNG and SVG), and compares two sets of
// runs metric by metric. It reads summary.json files only: the numbers
// are the checkers' (package check), never recomputed here.
package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// Cell is one analysed cell folder.
type Cell struct {
	Dir string // the cell folder
	Rel string // its path relative to the run folder
	S   *summary.Summary
	// Record is the cell's cell.json: where it ran (machine, cluster,
	// versions). Nil for a cell built in code.
	Record *runfolder.Cell
	// Histories: the cell folder holds its histories, so that it can be
	// analysed again (a committed baseline keeps its summaries only).
	Histories bool
	// write writes the files of a cell Load analysed, until
	// WriteSummaries calls it.
	write func(cellDir string) error
}

// Key identifies the cells that are repetitions of one another.
type Key struct {
	Strategy, CommitPolicy, Client string
}

func (k Key) String() string { return k.Strategy + " · " + k.CommitPolicy + " · " + k.Client }

// ParseKey reads a key as String writes it.
func ParseKey(s string) (Key, error) {
	parts := strings.Split(s, " · ")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return Key{}, fmt.Errorf("%s: expected a group as strategy · commit policy · client", clip.Quote(s))
	}
	return Key{parts[0], parts[1], parts[2]}, nil
}

// Group is the cells of one (strategy, commit policy, client): one per
// iteration of `chaos run --repeat N`.
type Group struct {
	Key   Key
	Cells []*Cell
}

// Run is a results folder's cells, grouped.
type Run struct {
	Dir     string
	Meta    *runfolder.Run // run.json, when the folder has one
	Cells   []*Cell
	Groups  []*Group
	Verdict summary.Verdict
}

// LoadOptions control Load.
type LoadOptions struct {
	// Analyze, when not nil, analyses the cells that have no summary.json;
	// without it such a cell is an error. A summary.json this build cannot
	// read as its own (another schema version, a verdict it does not know,
	// or one that does not parse) is an error either way: chaos analyze
	// writes it again (docs/summary.md).
	Analyze *Analyzer
	// Reanalyze analyses every cell again, whatever summary it has
	// (with Analyze).
	Reanalyze bool
}

// An Analyzer is the analysis, run for Load by the command that loads:
// the checkers of package check, with the command's options. Package
// report reads summaries and never computes one.
type Analyzer struct {
	// Check rejects what analysing the cell folders would reject (their
	// cell.json, other checkers' findings), before anything is read at
	// length.
	Check func(cellDirs []string) error
	// Analyze analyses a cell folder in memory: its summary, and what
	// writes its files (summary.json, latency.hlog) into the folder once
	// everything a command reads has been read (WriteSummaries).
	Analyze func(cellDir string) (*summary.Summary, func(cellDir string) error, error)
}

// CheckInput rejects what Load would reject as bad input, before anything
// is read at length or written: a folder without cells, an unreadable
// run.json, cell.json or findings, a summary.json of another schema
// version, and, when Load may not analyse, a cell without a summary.json.
// Load calls it first; a command that loads two folders calls it for both
// before it loads either.
func CheckInput(dir string, o LoadOptions) error {
	dirs, err := runfolder.FindCells(dir)
	if err != nil {
		return err
	}
	if _, err := runfolder.ReadRun(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if o.Analyze != nil {
		if err := o.Analyze.Check(dirs); err != nil {
			return err
		}
		if o.Reanalyze {
			return nil
		}
	}
	for _, d := range dirs {
		_, err := summary.ReadSummary(d)
		switch {
		case errors.Is(err, fs.ErrNotExist) && o.Analyze == nil:
			return fmt.Errorf("%s: no %s (run chaos analyze first)", d, summary.SummaryFile)
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		}
	}
	return nil
}

// Load reads every cell under dir (a run folder, a cell folder, or a
// folder of runs): wherever a cell.json is. Cells are grouped by strategy,
// commit policy and client, whatever folders they sit in. It checks its
// input first (CheckInput) and writes nothing: the summaries of the cells
// it analysed are written by WriteSummaries (WriteAll calls it), once
// everything a command reads has been read. Every error is about dir.
func Load(dir string, o LoadOptions) (*Run, error) {
	if err := CheckInput(dir, o); err != nil {
		return nil, err
	}
	dirs, err := runfolder.FindCells(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Verdict: summary.Valid}
	if meta, err := runfolder.ReadRun(dir); err == nil {
		r.Meta = &meta
	}
	for _, d := range dirs {
		rel, _ := filepath.Rel(dir, d)
		c := &Cell{Dir: d, Rel: rel}
		if st, err := os.Stat(runfolder.HistoryDir(d)); err == nil && st.IsDir() {
			c.Histories = true
		}
		var err error
		analyse := o.Analyze != nil && o.Reanalyze
		if !analyse {
			c.S, err = summary.ReadSummary(d)
			if errors.Is(err, fs.ErrNotExist) && o.Analyze == nil {
				return nil, fmt.Errorf("%s: no %s (run chaos analyze first)", d, summary.SummaryFile)
			}
			analyse = errors.Is(err, fs.ErrNotExist)
		}
		if analyse {
			c.S, c.write, err = o.Analyze.Analyze(d)
		}
		if err != nil {
			return nil, err
		}
		if rec, err := runfolder.ReadCell(d); err == nil {
			c.Record = &rec
		}
		r.Cells = append(r.Cells, c)
		r.Verdict = summary.Worst(r.Verdict, c.S.Verdict)
	}
	r.Groups = GroupCells(r.Cells)
	return r, nil
}

// WriteSummaries writes summary.json and latency.hlog of every cell Load
// analysed.
func (r *Run) WriteSummaries() error {
	for _, c := range r.Cells {
		if c.write == nil {
			continue
		}
		if err := c.write(c.Dir); err != nil {
			return err
		}
		c.write = nil
	}
	return nil
}

// GroupCells groups cells by (strategy, commit policy, client), in the
// report order of the vocabulary's strategies, then by commit policy and
// client;
// within a group, by iteration.
func GroupCells(cells []*Cell) []*Group {
	byKey := map[Key]*Group{}
	var out []*Group
	for _, c := range cells {
		k := Key{c.S.Cell.Strategy, c.S.Cell.CommitPolicy, c.S.Cell.Client}
		g := byKey[k]
		if g == nil {
			g = &Group{Key: k}
			byKey[k] = g
			out = append(out, g)
		}
		g.Cells = append(g.Cells, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Key, out[j].Key
		if ra, rb := vocab.StrategyRank(a.Strategy), vocab.StrategyRank(b.Strategy); ra != rb {
			return ra < rb
		}
		if a.Strategy != b.Strategy {
			return a.Strategy < b.Strategy
		}
		if ra, rb := vocab.PolicyRank(a.CommitPolicy), vocab.PolicyRank(b.CommitPolicy); ra != rb {
			return ra < rb
		}
		if a.CommitPolicy != b.CommitPolicy {
			return a.CommitPolicy < b.CommitPolicy
		}
		if ra, rb := vocab.ClientRank(a.Client), vocab.ClientRank(b.Client); ra != rb {
			return ra < rb
		}
		return a.Client < b.Client
	})
	for _, g := range out {
		sort.SliceStable(g.Cells, func(i, j int) bool { return g.Cells[i].S.Cell.Iteration < g.Cells[j].S.Cell.Iteration })
	}
	return out
}
