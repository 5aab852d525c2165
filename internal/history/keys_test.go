package history

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeyBlockKeepsEveryKey: keys copied into blocks, over many blocks,
// keys of every length up to the block's limit and beyond it, and the
// buffer they were read from overwritten each time, all still read as
// they were written.
func TestKeyBlockKeepsEveryKey(t *testing.T) {
	var k keyBlock
	var want, got []string
	buf := make([]byte, 0, 2*maxBlockKey)
	for i := range 20_000 {
		key := fmt.Sprintf("k%d-", i) + strings.Repeat("x", i%(maxBlockKey+20))
		buf = append(buf[:0], key...)
		got = append(got, k.copy(buf))
		want = append(want, key)
		for j := range buf {
			buf[j] = '#'
		}
	}
	if len(k.b) == 0 {
		t.Fatal("no key went into a block")
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("key %d reads %q, want %q", i, got[i], want[i])
		}
	}
	if s := k.copy(nil); s != "" {
		t.Errorf("an empty key reads %q", s)
	}
}
