package assign

import "sync"

// scratchInts keeps the int32 arrays that a model needs only while it
// runs (the owner of each partition before it builds the placement, the
// partitions nobody kept, the previous owners when the Spec has none):
// Assign compiles a group and runs a model on every call, and for a
// small group these arrays are most of what it would allocate, which the
// garbage collector then has to reclaim as often.
var scratchInts sync.Pool

// getInts returns an array of n int32s, of any contents, to give back
// with putInts once nothing refers to it.
func getInts(n int) *[]int32 {
	p, _ := scratchInts.Get().(*[]int32)
	if p == nil {
		p = new([]int32)
	}
	if cap(*p) < n {
		*p = make([]int32, n)
	}
	*p = (*p)[:n]
	return p
}

func putInts(p *[]int32) { scratchInts.Put(p) }
