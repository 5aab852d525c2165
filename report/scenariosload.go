package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/chaosbench/chaosbench/workloads"
)

// LoadScenarios reads every run under dir (each a folder with run.json and
// the workload.yaml it ran), analysing cells that have no summary, and
// judges each run's predictions. Runs are in folder order.
func LoadScenarios(dir string, o LoadOptions) ([]*Scenario, error) {
	var runs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if _, err := os.Stat(filepath.Join(p, "run.json")); err == nil {
			runs = append(runs, p)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no run folders (run.json)", dir)
	}
	sort.Strings(runs)
	var out []*Scenario
	for _, rd := range runs {
		r, err := Load(rd, o)
		if err != nil {
			return nil, err
		}
		sc := &Scenario{Run: r}
		src, err := os.ReadFile(filepath.Join(rd, "workload.yaml"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err == nil {
			if sc.Spec, err = workloads.Parse(filepath.Join(rd, "workload.yaml"), src); err != nil {
				return nil, err
			}
			sc.Statement = statement(string(src))
		}
		if err := sc.judge(); err != nil {
			return nil, fmt.Errorf("%s: %w", rd, err)
		}
		out = append(out, sc)
	}
	return out, nil
}
