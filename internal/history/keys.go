package history

import "unsafe"

// keyBlock holds record keys: a history has one per record, and nearly
// all of them are dropped as soon as the event has been looked at. Each
// key is copied into a block shared with the keys read before it, so that
// a key costs a copy rather than an allocation of its own, and the
// garbage collector sees one object per block rather than one per key.
// A string is never changed once made: a block is only appended to, and
// a new one is started when it is full. What a key kept for long keeps
// alive is its whole block: one who keeps many keys (the ordering check
// keeps one of every key) keeps copies of them (strings.Clone), so that
// the memory kept stays that of the keys, whatever the history's length.
type keyBlock struct {
	b []byte
}

const (
	keyBlockBytes = 16 << 10
	// maxBlockKey: a longer key is allocated alone.
	maxBlockKey = 256
)

// copy returns b as a string.
func (k *keyBlock) copy(b []byte) string {
	n := len(b)
	if n == 0 || n > maxBlockKey {
		return string(b)
	}
	if cap(k.b)-len(k.b) < n {
		k.b = make([]byte, 0, keyBlockBytes)
	}
	start := len(k.b)
	k.b = append(k.b, b...)
	return unsafe.String(&k.b[start], n)
}
