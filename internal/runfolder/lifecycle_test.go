package runfolder

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// A record is partial from Begin, with the reason that says a driver
// killed in between never finished it; Finish says how it ended; a record
// begun again keeps its first start.
func TestLifecycle(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var l Lifecycle
	l.Begin(t0)
	if l.Start != t0 || l.Complete || l.PartialReason != Unfinished || l.Finished() {
		t.Fatalf("begun: %+v", l)
	}
	l.Finish(t0.Add(time.Minute), errors.New("2 cell(s) failed"))
	if l.Complete || l.PartialReason != "2 cell(s) failed" || !l.Finished() {
		t.Fatalf("failed: %+v", l)
	}
	l.Begin(t0.Add(time.Hour))
	if l.Start != t0 || l.Finished() || l.PartialReason != Unfinished {
		t.Fatalf("begun again: %+v", l)
	}
	l.Finish(t0.Add(2*time.Hour), nil)
	if !l.Complete || l.PartialReason != "" || l.End != t0.Add(2*time.Hour) {
		t.Fatalf("complete: %+v", l)
	}
	// Embedded, its fields are the record's own: run.json keeps its keys.
	b, err := json.Marshal(Run{Workload: "w", Lifecycle: l})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"start":`, `"end":`, `"complete":true`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("run.json %s: no %s", b, key)
		}
	}
}
