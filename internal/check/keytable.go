package check

import (
	"encoding/binary"
	"math/bits"
	"strings"
)

// keyTable holds the ordering state of one producer's record keys. A
// history names up to millions of keys and the ordering check looks one
// up for every record processed, from a table far larger than the
// processor's caches, so the table is laid out for that lookup: an index
// of 8-byte entries (a tag from the key's hash, and where its state is),
// at most half full, over a dense slice of states, each a cache line
// that holds its key's first 16 bytes. Finding a key's state reads one
// index entry and the state, nothing else unless the key is longer than
// 16 bytes.
type keyTable struct {
	index  []uint64 // tag<<32 | position in states + 1; 0 is empty
	shift  uint     // a hash's top bits are its index position
	states []keyState
	keys   []string // by position in states
}

// hash returns key's hash, for state and entry.
func (t *keyTable) hash(key string) uint64 {
	w0, w1 := keyWords(key)
	return keyHash(w0, w1, key)
}

// keyWords returns key's first 16 bytes, zero-padded.
func keyWords(key string) (w0, w1 uint64) {
	var head [16]byte
	copy(head[:], key)
	return binary.LittleEndian.Uint64(head[:8]), binary.LittleEndian.Uint64(head[8:])
}

// state returns the state of key, whose hash is h, adding a new one (no
// seq processed yet) when the key is new. The pointer is valid until the
// next call.
func (t *keyTable) state(key string, h uint64) (k *keyState, added bool) {
	if len(t.index) == 0 {
		t.grow(1024)
	}
	w0, w1 := keyWords(key)
	tag := uint64(uint32(h)) << 32
	mask := len(t.index) - 1
	for i := int(h >> t.shift); ; i = (i + 1) & mask {
		x := t.index[i]
		if x == 0 {
			t.states = append(t.states, keyState{w0: w0, w1: w1, keyLen: int32(len(key)), maxSeq: -1, lo: 0, hi: -1})
			// A copy: the event's key shares its memory with other
			// keys read (history's keyBlock), which keeping it would
			// keep too.
			t.keys = append(t.keys, strings.Clone(key))
			t.index[i] = tag | uint64(len(t.states))
			if 2*len(t.states) > len(t.index) {
				t.grow(2 * len(t.index))
			}
			return &t.states[len(t.states)-1], true
		}
		if x&^(1<<32-1) != tag {
			continue
		}
		j := uint32(x) - 1
		k := &t.states[j]
		if k.w0 == w0 && k.w1 == w1 && int(k.keyLen) == len(key) && (len(key) <= 16 || t.keys[j][16:] == key[16:]) {
			return k, false
		}
	}
}

// entry returns the index entry where a lookup of the key whose hash is
// h starts: a pass over many keys starts their cache misses together
// (see flush).
func (t *keyTable) entry(h uint64) uint64 {
	if len(t.index) == 0 {
		return 0
	}
	return t.index[h>>t.shift]
}

// touch reads the state an index entry names, if any, and returns a
// word of it: the second pass of a lookup over many keys.
func (t *keyTable) touch(x uint64) uint64 {
	if x == 0 || int(uint32(x)) > len(t.states) {
		return 0
	}
	return t.states[uint32(x)-1].w0
}

// grow rebuilds the index with n entries (a power of two).
func (t *keyTable) grow(n int) {
	t.index = make([]uint64, n)
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for j := range t.states {
		k := &t.states[j]
		h := keyHash(k.w0, k.w1, t.keys[j])
		i := int(h >> t.shift)
		for t.index[i] != 0 {
			i = (i + 1) & mask
		}
		t.index[i] = uint64(uint32(h))<<32 | uint64(j+1)
	}
}

// keyHash mixes a key's first 16 bytes (w0, w1), its length and any
// bytes after them.
func keyHash(w0, w1 uint64, key string) uint64 {
	h := (w0^0x9E3779B97F4A7C15)*0xBF58476D1CE4E5B9 ^ bits.RotateLeft64(w1*0x94D049BB133111EB, 29) ^ uint64(len(key))
	for tail := key[min(len(key), 16):]; len(tail) > 0; {
		var w [8]byte
		n := copy(w[:], tail)
		tail = tail[n:]
		h = (h ^ binary.LittleEndian.Uint64(w[:])) * 0x9E3779B97F4A7C15
	}
	h ^= h >> 31
	h *= 0xD6E8FEB86659FD93
	return h ^ h>>32
}
