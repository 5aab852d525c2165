package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/workloads"
)

// A run's iterations rotate its cells: over three iterations of three
// cells each cell runs first once, and every cell's every iteration runs
// exactly once.
func TestScheduleRotates(t *testing.T) {
	cells := []workloads.Cell{{Name: "range"}, {Name: "sticky"}, {Name: "coop"}}
	var got []string
	for _, s := range schedule(cells, 3) {
		got = append(got, s.cell.Name+"/"+string(rune('0'+s.iter)))
	}
	want := []string{"range/0", "sticky/0", "coop/0", "sticky/1", "coop/1", "range/1", "coop/2", "range/2", "sticky/2"}
	if !slices.Equal(got, want) {
		t.Errorf("schedule %s, want %s", strings.Join(got, " "), strings.Join(want, " "))
	}
	if got := schedule(cells, 1); len(got) != 3 || got[0].cell.Name != "range" {
		t.Errorf("one iteration keeps the workload's order: %v", got)
	}
}
