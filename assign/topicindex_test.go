package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A topicIndex finds every name it holds and no other, including names
// that agree in every byte it hashes.
func TestTopicIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 7))
	for round := range 300 {
		seen := map[string]bool{}
		var names []string
		for range rng.IntN(maxIndexedTopics + 1) {
			var name string
			switch rng.IntN(3) {
			case 0: // differ only in their first bytes: the hash collides
				name = fmt.Sprintf("%c%c-topic-x", 'a'+rng.IntN(26), 'a'+rng.IntN(26))
			case 1:
				name = fmt.Sprintf("topic%02d", rng.IntN(100))
			default:
				name = string(rune('a' + rng.IntN(26)))
			}
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
		slices.Sort(names)
		x := newTopicIndex(names)
		for i, name := range names {
			if got, ok := x.get(name); !ok || got != int32(i) {
				t.Fatalf("round %d: get(%q) = %d, %v; want %d", round, name, got, ok, i)
			}
		}
		for _, absent := range []string{"", "zz-topic-x", "topic100", "A", "b-topic-x"} {
			if _, ok := x.get(absent); ok != seen[absent] {
				t.Fatalf("round %d: get(%q) found %v, want %v", round, absent, ok, seen[absent])
			}
		}
	}
}
