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

// specPool keeps the Specs that Assign compiles, with their arrays:
// Assign converts the model's placement to names before it returns, and
// what it returns shares only the Spec's topic names and offsets, which
// every compilation allocates anew. The rest (the members' ids, classes
// and owned partitions, the classifier's tables, a model's member order
// and the placement's starts) would otherwise be allocated on every call
// and reclaimed as often, and on a small group they are as much as the
// assignment itself.
var specPool = sync.Pool{New: func() any { return &Spec{scratch: new(specScratch)} }}

// specScratch is what a recycled Spec keeps besides its own arrays: the
// arrays that compiling a group and running a model need only meanwhile.
type specScratch struct {
	classifier classifier
	number     []int32 // numberTopics': index in all -> topic number
	// The owned partitions' arrays, which the Spec has only when its
	// strategy reads them.
	ownedParts, ownedStart []int32
	order                  []int32 // allMembers'
	start                  []int32 // placementStarts'
	placement              Placement
}

// recycledSpec returns a Spec from specPool, to compile and give back
// with recycle once nothing refers to it or to a placement of it.
func recycledSpec() *Spec { return specPool.Get().(*Spec) }

// recycle gives s back to specPool, keeping its arrays but none of the
// group's strings (the pool does not keep them alive) nor what
// assignments share.
func (s *Spec) recycle() {
	x := s.scratch
	clear(s.members)
	s.inst, s.topics, s.offset, s.small, s.index = nil, nil, nil, nil, nil
	x.classifier.all, x.classifier.byNames, x.classifier.index = nil, nil, nil
	if x.classifier.small != nil {
		x.classifier.small.names = nil
	}
	if s.ownedStart != nil {
		x.ownedParts, x.ownedStart = s.ownedParts, s.ownedStart
	}
	s.ownedParts, s.ownedStart = nil, nil
	x.placement = Placement{}
	specPool.Put(s)
}

// placementStarts returns a zeroed array of n int32s for a placement's
// member starts: a new one, or a recycled Spec's scratch array (the
// placement does not outlive the Spec's recycling).
func (s *Spec) placementStarts(n int) []int32 {
	if s.scratch == nil {
		return make([]int32, n)
	}
	s.scratch.start = reuse(s.scratch.start, n)
	clear(s.scratch.start)
	return s.scratch.start
}

// newPlacement returns a placement of s: a new one, or a recycled Spec's
// own (the placement does not outlive the Spec's recycling).
func (s *Spec) newPlacement(start, parts, local []int32) *Placement {
	p := Placement{spec: s, start: start, parts: parts, local: local}
	if s.scratch == nil {
		return &p
	}
	s.scratch.placement = p
	return &s.scratch.placement
}

// reuse returns buf[:n] if it has room for n elements, of any contents,
// else a new array of n.
func reuse[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}
