package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// Files a report writes into the run folder.
const (
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
	PlotDir      = "plots"
)

// WriteAll writes the summaries of the cells Load analysed
// (WriteSummaries), then report.md, report.html and plots/*.png|svg into
// the run's folder. Every file is written to a temporary name and renamed
// into place, so a reader never sees half of one.
func WriteAll(r *Run) error {
	figs, err := Figures(r)
	if err != nil {
		return err
	}
	if err := r.WriteSummaries(); err != nil {
		return err
	}
	if err := writeFigures(r.Dir, figs); err != nil {
		return err
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r, PlotDir); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(r.Dir, MarkdownFile), md.Bytes()); err != nil {
		return err
	}
	emb, err := Embed(figs)
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r, emb); err != nil {
		return err
	}
	return writeFile(filepath.Join(r.Dir, HTMLFile), page.Bytes())
}

func writeFile(path string, b []byte) error { return runfolder.WriteFile(path, b) }

// writeFigures writes every figure under dir/plots as PNG and SVG, each
// to a temporary name renamed into place.
func writeFigures(dir string, figs []*Figure) error {
	plots := filepath.Join(dir, PlotDir)
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return err
	}
	for _, f := range figs {
		var png, svg bytes.Buffer
		if err := f.PNG(&png); err != nil {
			return fmt.Errorf("figure %s: %w", f.Name, err)
		}
		if err := f.SVG(&svg); err != nil {
			return fmt.Errorf("figure %s: %w", f.Name, err)
		}
		if err := writeFile(filepath.Join(plots, f.Name+".png"), png.Bytes()); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(plots, f.Name+".svg"), svg.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
