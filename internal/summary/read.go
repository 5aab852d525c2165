package summary

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// SummaryFile is a cell folder's summary, written by the analysis.
const SummaryFile = "summary.json"

// maxSummarySize bounds a summary.json a reader reads whole: its lists
// (pauses, disruptions, examples) are bounded by the cell's partitions
// and disruptions, far below this.
const maxSummarySize = 256 << 20

// ReadSummary reads a cell folder's summary.json and refuses one this
// build cannot read as its own: another schema version, a verdict it does
// not know.
func ReadSummary(dir string) (*Summary, error) {
	path := filepath.Join(dir, SummaryFile)
	b, err := runfolder.ReadFile(path, maxSummarySize)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: field \"schema_version\": %d (this build reads version %d; re-run chaos analyze)", path, s.SchemaVersion, SchemaVersion)
	}
	// A verdict this build does not know would pass -fail-on and every
	// comparison as if it were none.
	if !s.Verdict.Known() {
		return nil, fmt.Errorf("%s: field \"verdict\": %s (expected valid, invalid or unknown; re-run chaos analyze)", path, clip.Quote(string(s.Verdict)))
	}
	if s.Analysis.Revision < Revision {
		if s.present, err = fieldPaths(b); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	for i, f := range s.Findings {
		if f.Verdict != "" && !f.Verdict.Known() {
			return nil, fmt.Errorf("%s: field \"findings\"[%d].\"verdict\": %s (expected valid, invalid or unknown; re-run chaos analyze)", path, i, clip.Quote(string(f.Verdict)))
		}
	}
	return &s, nil
}

// fieldPaths returns the path of every object field of a JSON document
// ("pause", "pause.stats", "pause.stats.count"), arrays left out: what a
// summary of an older revision holds.
func fieldPaths(b []byte) (map[string]bool, error) {
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			out[prefix+k] = true
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", doc)
	return out, nil
}
