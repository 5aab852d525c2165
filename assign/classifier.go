package assign

import (
	"math/bits"
	"slices"
	"strings"
)

// classifier gives members with the same subscription, as a set of
// names, the same class. The set is a bit set of topics when there are
// 64 topics or fewer and all its topics exist, else its sorted names.
type classifier struct {
	all   []string         // every topic with a partition count, sorted
	small *topicIndex      // topic name -> its index in all, up to maxIndexedTopics topics
	index map[string]int32 // the same, for more topics (else nil)

	flat    []int32 // every class's topics (indexes in all), ascending, one class after the other
	ends    []int   // class -> end of its topics in flat
	byBits  bitSetClasses
	byNames map[string]int32
}

func newClassifier(topics map[string]int32) *classifier {
	c := new(classifier)
	c.reset(topics, 0)
	return c
}

// reset makes c a classifier of subscriptions to topics, empty, keeping
// the arrays it has (a recycled Spec's: see specPool) unless they are
// far larger than a group of that many members needs. Its names are
// new: a Spec's topic names, which assignments share.
func (c *classifier) reset(topics map[string]int32, members int) {
	c.all = sortedKeys(topics)
	c.flat, c.ends = c.flat[:0], c.ends[:0]
	c.byBits.reset(members)
	c.byNames = nil
	if len(c.all) <= maxIndexedTopics {
		if c.small == nil {
			c.small = new(topicIndex)
		}
		c.small.reset(c.all)
		c.index = nil
		return
	}
	c.small = nil
	c.index = make(map[string]int32, len(c.all))
	for i, t := range c.all {
		c.index[t] = int32(i)
	}
}

// lookup returns the index in all of a topic name, if it has one.
func (c *classifier) lookup(name string) (int32, bool) {
	if c.small != nil {
		return c.small.get(name)
	}
	i, ok := c.index[name]
	return i, ok
}

// classOf returns the class of a subscription, a new one if no member
// had it before.
func (c *classifier) classOf(topics []string) int32 {
	if set, ok := c.bitSet(topics); ok {
		return c.classOfBits(set)
	}
	return c.classOfNames(topics)
}

// bitSet returns the subscription as a bit set of indexes in all, if
// there are 64 topics or fewer and all of its topics exist.
func (c *classifier) bitSet(topics []string) (uint64, bool) {
	if c.small == nil {
		return 0, false // more than 64 topics
	}
	var set uint64
	for _, t := range topics {
		ti, ok := c.small.get(t)
		if !ok {
			return 0, false
		}
		set |= 1 << (uint(ti) & 63)
	}
	return set, true
}

func (c *classifier) classOfBits(set uint64) int32 {
	if k, ok := c.byBits.get(set); ok {
		return k
	}
	for rest := set; rest != 0; rest &= rest - 1 {
		c.flat = append(c.flat, int32(bits.TrailingZeros64(rest)))
	}
	k := c.newClass()
	c.byBits.put(set, k)
	return k
}

func (c *classifier) classOfNames(topics []string) int32 {
	key := canonicalTopics(topics)
	if k, ok := c.byNames[key]; ok {
		return k
	}
	if c.byNames == nil {
		c.byNames = make(map[string]int32)
	}
	begin := len(c.flat)
	for _, t := range topics {
		if ti, ok := c.lookup(t); ok && !slices.Contains(c.flat[begin:], ti) {
			c.flat = append(c.flat, ti)
		}
	}
	slices.Sort(c.flat[begin:])
	k := c.newClass()
	c.byNames[key] = k
	return k
}

// newClass ends the class whose topics were just appended to flat.
func (c *classifier) newClass() int32 {
	c.ends = append(c.ends, len(c.flat))
	return int32(len(c.ends) - 1)
}

// sameTopics reports whether two subscriptions are the same list (the
// common case of members sharing one subscription).
func sameTopics(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// canonicalTopics is a subscription as a set: its names sorted.
func canonicalTopics(topics []string) string {
	if len(topics) == 1 {
		return topics[0]
	}
	sorted := slices.Clone(topics)
	slices.Sort(sorted)
	return strings.Join(sorted, "\x00")
}

// bitSetClasses maps subscriptions, as bit sets of topics, to their
// class: an open-addressing table (Fibonacci hashing, linear probing)
// kept at most half full. A Go map's hashing and probing cost more than
// the rest of the classifier's work when every member of a mixed group
// has a subscription of its own. The zero value is empty.
type bitSetClasses struct {
	sets    []uint64
	classes []int32 // class + 1; 0: empty slot
	shift   uint    // 64 - log2(len(sets))
	n       int
}

// reset empties the table, keeping its arrays unless they are larger
// than the classes of that many members could have grown them.
func (t *bitSetClasses) reset(members int) {
	if len(t.sets) > max(32, 4*members) {
		*t = bitSetClasses{}
		return
	}
	clear(t.classes)
	t.n = 0
}

func (t *bitSetClasses) slot(set uint64) uint64 { return set * 0x9e3779b97f4a7c15 >> t.shift }

func (t *bitSetClasses) get(set uint64) (int32, bool) {
	if t.n == 0 {
		return -1, false
	}
	mask := uint64(len(t.sets) - 1)
	for i := t.slot(set); ; i = (i + 1) & mask {
		if k := t.classes[i]; k == 0 {
			return -1, false
		} else if t.sets[i] == set {
			return k - 1, true
		}
	}
}

// put adds a set that is not in the table.
func (t *bitSetClasses) put(set uint64, class int32) {
	if 2*(t.n+1) > len(t.sets) {
		t.grow()
	}
	mask := uint64(len(t.sets) - 1)
	i := t.slot(set)
	for t.classes[i] != 0 {
		i = (i + 1) & mask
	}
	t.sets[i], t.classes[i] = set, class+1
	t.n++
}

func (t *bitSetClasses) grow() {
	old := *t
	size := max(16, 2*len(old.sets))
	*t = bitSetClasses{
		sets:    make([]uint64, size),
		classes: make([]int32, size),
		shift:   uint(64 - bits.TrailingZeros(uint(size))),
	}
	for i, k := range old.classes {
		if k != 0 {
			t.put(old.sets[i], k-1)
		}
	}
}
