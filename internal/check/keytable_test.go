package check

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestKeyTableAgreesWithMap: over keys short and long, sharing their
// first 16 bytes, of any byte value, the table finds each key's one
// state, keeps what was stored in it across growth, and adds a key only
// once.
func TestKeyTableAgreesWithMap(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var tab keyTable
	want := map[string]int64{}
	pos := map[string]int{}
	for i := 0; i < 200000; i++ {
		var key string
		switch rng.Intn(5) {
		case 0:
			key = fmt.Sprintf("k%06d", rng.Intn(40000))
		case 1:
			key = "session-00000000-" + fmt.Sprint(rng.Intn(3000)) // long, one prefix
		case 2:
			b := make([]byte, rng.Intn(40))
			rng.Read(b)
			key = string(b)
		case 3:
			key = strings.Repeat("\x00", rng.Intn(20)) // zero bytes: the padding's value
		default:
			key = ""
		}
		k, added := tab.state(key, tab.hash(key))
		seen, ok := want[key]
		if added == ok {
			t.Fatalf("%q: added %v, but it was seen before: %v", key, added, ok)
		}
		if added {
			pos[key] = len(tab.states) - 1
		}
		if p := pos[key]; k != &tab.states[p] || tab.keys[p] != key {
			t.Fatalf("%q: found the state at %p, want %p (of %q)", key, k, &tab.states[p], tab.keys[p])
		}
		if ok && k.maxSeq != seen {
			t.Fatalf("%q: state holds %d, want %d", key, k.maxSeq, seen)
		}
		k.maxSeq = int64(i)
		want[key] = int64(i)
	}
	if len(tab.states) != len(want) {
		t.Fatalf("%d states, want %d", len(tab.states), len(want))
	}
}
