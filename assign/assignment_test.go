package assign

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// nestedMaps is an assignment in the nested maps it stands for.
func nestedMaps(a Assignment) map[string]map[string][]int32 {
	out := make(map[string]map[string][]int32, len(a))
	for m, topics := range a {
		out[m] = topics.Map()
	}
	return out
}

// An Assignment encodes to JSON and prints exactly as the nested maps
// member -> topic -> partitions do (the output of `chaos assign`), and
// its JSON decodes back to it.
func TestAssignmentFormats(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 300 {
		g := randomGroup(rng, i%2 == 0)
		for _, a := range assignors {
			got := a.Assign(g)
			want := nestedMaps(got)
			gj, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			wj, _ := json.Marshal(want)
			if string(gj) != string(wj) {
				t.Fatalf("%s: JSON %s, want %s", a.Name(), gj, wj)
			}
			if gs, ws := fmt.Sprint(got), fmt.Sprint(want); gs != ws {
				t.Fatalf("%s: prints %s, want %s", a.Name(), gs, ws)
			}
			var back Assignment
			if err := json.Unmarshal(gj, &back); err != nil {
				t.Fatal(err)
			}
			if !equalAssignments(back, got) {
				t.Fatalf("%s: %s decodes to %v", a.Name(), gj, back)
			}
		}
	}
	// Topic names that JSON escapes; a member with nothing.
	a := Assignment{"c0": NewMemberAssignment(map[string][]int32{`a"b`: {1}, "<t>": {2, 0}, "t": nil}), "c1": {}}
	gj, _ := json.Marshal(a)
	wj, _ := json.Marshal(nestedMaps(a))
	if string(gj) != string(wj) {
		t.Errorf("JSON %s, want %s", gj, wj)
	}
}
