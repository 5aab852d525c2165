package assign

// topicIndex finds a topic name's index in a short list of names (up
// to 64: the subscriptions the classifier keys by bit set). Compiling a
// group looks up every member's topics; a Go map hashes every byte of
// each name, where topic names (orders-eu, orders-us; topic00, topic01)
// mostly differ in their length or in a few bytes at the end, which is
// all this table hashes. Names that collide are told apart by comparing
// them in full, and the table is at most a quarter full.
type topicIndex struct {
	names []string
	slots []int8 // index in names + 1; 0: empty
	mask  uint32
}

// maxIndexedTopics is the most names a topicIndex takes.
const maxIndexedTopics = 64

func newTopicIndex(names []string) *topicIndex {
	x := new(topicIndex)
	x.reset(names)
	return x
}

// reset makes x the index of names, in the table it has if that is
// large enough (a recycled Spec's: see specPool).
func (x *topicIndex) reset(names []string) {
	size := 8
	for size < 4*len(names) {
		size *= 2
	}
	x.names, x.slots, x.mask = names, reuse(x.slots, size), uint32(size-1)
	clear(x.slots)
	for i, name := range names {
		h := x.hash(name)
		for x.slots[h] != 0 {
			h = (h + 1) & x.mask
		}
		x.slots[h] = int8(i + 1)
	}
}

// hash mixes a name's length and its last, second last and middle bytes.
func (x *topicIndex) hash(name string) uint32 {
	n := len(name)
	h := uint32(n) * 0x9e3779b1
	if n > 0 {
		h ^= uint32(name[n-1]) * 0x85ebca6b
		h ^= uint32(name[n/2]) * 0xc2b2ae35
		if n > 1 {
			h ^= uint32(name[n-2]) * 0x27d4eb2f
		}
	}
	h ^= h >> 15
	return h & x.mask
}

// get returns the index of name, if it is one of the names.
func (x *topicIndex) get(name string) (int32, bool) {
	for h := x.hash(name); ; h = (h + 1) & x.mask {
		i := x.slots[h]
		if i == 0 {
			return -1, false
		}
		if x.names[i-1] == name {
			return int32(i - 1), true
		}
	}
}
