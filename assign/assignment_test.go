package assign

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
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
	for _, c := range [][2]map[string][]int32{
		{{"t0": {0}}, {"t1": {0}}},
		{{"t0": {0, 1}}, {"t0": {0}, "t1": {1}}},
		{{"t0": {0, 1}}, {"t0": {0, 2}}},
		{{"t0": {0}}, {}},
	} {
		if NewMemberAssignment(c[0]).Equal(NewMemberAssignment(c[1])) || NewMemberAssignment(c[1]).Equal(NewMemberAssignment(c[0])) {
			t.Errorf("%v and %v are equal", c[0], c[1])
		}
	}
}

// A Placement's Assignment names what Member and TopicPartition say,
// and every way of reading a MemberAssignment agrees.
func TestAssignmentOfPlacement(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for i := range 300 {
		g := randomGroup(rng, i%2 == 0)
		spec := NewSpec(g)
		for _, a := range assignors {
			p := a.AssignSpec(spec)
			want := map[string]map[string][]int32{}
			for m := range spec.NumMembers() {
				byTopic := map[string][]int32{}
				for _, gp := range p.Member(m) {
					tp := spec.TopicPartition(gp)
					byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
				}
				want[spec.MemberID(m)] = byTopic
			}
			got := p.Assignment()
			if gs, ws := fmt.Sprint(nestedMaps(got)), fmt.Sprint(want); gs != ws {
				t.Fatalf("%s: %s, want %s", a.Name(), gs, ws)
			}
			for id, byTopic := range want {
				n := 0
				for topic, ps := range byTopic {
					n += len(ps)
					if got := got[id].Partitions(topic); !slices.Equal(got, ps) {
						t.Fatalf("%s: %s.Partitions(%s) = %v, want %v", a.Name(), id, topic, got, ps)
					}
				}
				if got[id].Count() != n || got[id].Partitions("no such topic") != nil {
					t.Fatalf("%s: %s: Count %d, want %d", a.Name(), id, got[id].Count(), n)
				}
				if !got[id].Equal(NewMemberAssignment(byTopic)) {
					t.Fatalf("%s: %s is not equal to its own map", a.Name(), id)
				}
			}
		}
	}
}
