package assign

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
)

// A group or a script beyond the bounds is refused before any model
// allocates for it: a topic of two billion partitions ran chaos assign
// out of memory.
func TestGroupBounds(t *testing.T) {
	one := []Member{{ID: "c0", Topics: []string{"t0"}}}
	for want, g := range map[string]*Group{
		"partition count 2000000000":              {Topics: map[string]int32{"t0": 2000000000}, Members: one},
		"partitions in all":                       {Topics: map[string]int32{"t0": 600000, "t1": 600000}, Members: one},
		"(250 bytes): expected at most 249 bytes": {Topics: map[string]int32{strings.Repeat("t", 250): 1}, Members: one},
		"byte 1 is ' '":                           {Topics: map[string]int32{"t 0": 1}, Members: one},
		`topic name ".." is not allowed`:          {Topics: map[string]int32{"t0": 1}, Members: []Member{{ID: "c0", Topics: []string{".."}}}},
		"members[0].id: 2000 bytes":               {Topics: map[string]int32{"t0": 1}, Members: []Member{{ID: strings.Repeat("c", 2000), Topics: []string{"t0"}}}},
		"members[0].instance_id: instance id":     {Topics: map[string]int32{"t0": 1}, Members: []Member{{ID: "c0", InstanceID: "i/0", Topics: []string{"t0"}}}},
	} {
		if err := g.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", g.Topics, err, want)
		}
	}
	many := &Group{Topics: map[string]int32{"t0": 1}}
	for i := range MaxMembers + 1 {
		many.Members = append(many.Members, Member{ID: fmt.Sprint("c", i), Topics: []string{"t0"}})
	}
	if err := many.Validate(); err == nil || !strings.Contains(err.Error(), "members") {
		t.Errorf("%d members: %v", len(many.Members), err)
	}
	for script, want := range map[string]string{
		"topic t0 2000000000\njoin c0 t0\n":                        "s.txt:1: topic t0: partition count \"2000000000\"; expected 1 to 1000000",
		"join c0..c999999 t0\n":                                    "s.txt:1: member range \"c0..c999999\": more than 100000 members",
		"topic " + strings.Repeat("t", 300) + " 1\n":               "expected at most 249",
		"join c0 t0\njoin c1 " + strings.Repeat("t", 2<<20) + "\n": "s.txt:2: line longer than 1048576 bytes",
		"join c0 t0,t/1\n":                                         "join: topic name \"t/1\": byte 1 is '/'",
	} {
		if _, err := ParseScript(strings.NewReader(script), "s.txt"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", script, err, want)
		}
	}
}

// A process's newer incarnation ends those seen before it, not every
// number below its own: incarnations numbered near the history's bound
// took the oracle minutes.
func TestOracleIncarnationsNearTheBound(t *testing.T) {
	events := func(yield func(*history.Event) bool) {
		for i := range 3000 {
			e := &history.Event{Kind: history.Assigned, T: int64(1 + i), Proc: "m1", Inc: history.MaxIncarnation - 3000 + i, Partitions: []int32{0}}
			if !yield(e) {
				return
			}
		}
	}
	start := time.Now()
	if _, err := CheckHistory("range", "t", 1, events); err != nil {
		t.Fatal(err)
	}
	// A guard against the minutes the old walk took, not a speed
	// target: a loaded two-core machine under -race takes seconds.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("3000 incarnations took %v", d)
	}
	if _, err := CheckHistory("range", "t", 2000000000, events); err == nil {
		t.Error("two billion partitions: accepted")
	}
}
