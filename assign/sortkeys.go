package assign

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// sortByKey sorts members (indexes into keys) by their keys. It sorts
// numbers, not strings: each member's number holds, in its high bits, the
// first bytes of its key after the prefix that all of them share (ids
// such as consumer-<n>-<uuid> share one), and the member itself in the
// low bytes; members whose high bits are equal are then compared in full.
func sortByKey(members []int32, keys []string) {
	if len(members) < 2 {
		return
	}
	prefix := sharedPrefix(members, keys)
	// Whole bytes for the member, which the radix sort need not sort by:
	// the members whose keys' bits are equal are put in order below.
	memberBits := 8 * ((bits.Len(uint(len(keys)-1)) + 7) / 8)
	buf := sortBuffers.Get().(*[]uint64)
	if cap(*buf) < 2*len(members) {
		*buf = make([]uint64, 2*len(members))
	}
	sorted, spare := (*buf)[:len(members)], (*buf)[len(members):2*len(members)]
	for i, m := range members {
		sorted[i] = keyWindow(keys[m][prefix:])>>memberBits<<memberBits | uint64(m)
	}
	sortNumbers(sorted, spare, memberBits/8)
	mask := uint64(1)<<memberBits - 1
	for i, v := range sorted {
		members[i] = int32(v & mask)
	}
	// Equal high bits: compare the keys in full.
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j]>>memberBits == sorted[i]>>memberBits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(members[i:j], func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
		}
		i = j
	}
	sortBuffers.Put(buf)
}

// sortBuffers keeps sortByKey's numbers and the radix sort's second
// array between sorts: a group's every assignment sorts its members, and
// these arrays would be most of what a small one allocates.
var sortBuffers = sync.Pool{New: func() any { return new([]uint64) }}

// sharedPrefix returns the length of the prefix the members' keys share.
func sharedPrefix(members []int32, keys []string) int {
	first := keys[members[0]]
	prefix := len(first)
	for _, m := range members[1:] {
		k := keys[m]
		if len(k) >= prefix && k[:prefix] == first[:prefix] {
			continue // all of it: once the prefix is found, most keys
		}
		n := min(prefix, len(k))
		i := 0
		// 8 bytes at a time: the first that differs is the highest
		// nonzero byte of their difference.
		for ; i+8 <= n; i += 8 {
			if x := keyWindow(k[i:]) ^ keyWindow(first[i:]); x != 0 {
				n = i + bits.LeadingZeros64(x)/8
				break
			}
		}
		for i < n && k[i] == first[i] {
			i++
		}
		prefix = i
	}
	return prefix
}

// keyWindow returns the first 8 bytes of k as a big-endian number,
// padded with zeros: numbers compare as the windows do as strings.
func keyWindow(k string) uint64 {
	if len(k) >= 8 {
		// One load (the compiler merges the bytes' loads).
		return uint64(k[0])<<56 | uint64(k[1])<<48 | uint64(k[2])<<40 | uint64(k[3])<<32 |
			uint64(k[4])<<24 | uint64(k[5])<<16 | uint64(k[6])<<8 | uint64(k[7])
	}
	var w uint64
	for j := range 8 {
		w <<= 8
		if j < len(k) {
			w |= uint64(k[j])
		}
	}
	return w
}

// radixFrom is how many numbers sortNumbers sorts by radix rather than
// by comparison: below it the 256 buckets of each byte cost more than
// they save.
const radixFrom = 256

// sortNumbers sorts v ascending by their bytes from the from-th lowest
// up (0: all of them), using spare (as long as v) as it likes. Many
// numbers are sorted byte by byte, from the lowest (a stable counting
// sort per byte), skipping the bytes below from and those all of them
// share: linear, where a comparison sort of 10,000 numbers makes over
// 100,000 comparisons. Few are sorted by comparison, bytes below from
// included.
func sortNumbers(v, spare []uint64, from int) {
	if len(v) < radixFrom {
		slices.Sort(v)
		return
	}
	var counts [8][256]int32
	for _, x := range v {
		counts[0][byte(x)]++
		counts[1][byte(x>>8)]++
		counts[2][byte(x>>16)]++
		counts[3][byte(x>>24)]++
		counts[4][byte(x>>32)]++
		counts[5][byte(x>>40)]++
		counts[6][byte(x>>48)]++
		counts[7][byte(x>>56)]++
	}
	src, dst := v, spare[:len(v)]
	for b := from; b < 8; b++ {
		shift := 8 * b
		c := &counts[b]
		if c[byte(v[0]>>shift)] == int32(len(v)) {
			continue // every number has this byte
		}
		at := int32(0) // where each byte value's numbers begin
		for i, n := range c {
			c[i] = at
			at += n
		}
		for _, x := range src {
			d := byte(x >> shift)
			dst[c[d]] = x
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &v[0] {
		copy(v, src)
	}
}
