package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomGroup makes a small group with a random previous assignment:
// 1-4 topics of 1-12 partitions, 1-10 members, the same or random
// subscriptions, some static members, owned partitions (a few of topics
// the owner no longer subscribes to).
func randomGroup(rng *rand.Rand, homogeneous bool) *Group {
	g := &Group{Topics: map[string]int32{}}
	var topics []string
	for i := range 1 + rng.IntN(4) {
		t := fmt.Sprintf("t%d", i)
		topics = append(topics, t)
		g.Topics[t] = int32(1 + rng.IntN(12))
	}
	nm := 1 + rng.IntN(10)
	for i := range nm {
		m := Member{ID: fmt.Sprintf("consumer-%d-%08x", i, rng.Uint32())}
		if rng.IntN(5) == 0 {
			m.InstanceID = fmt.Sprintf("i%d", rng.IntN(1000)*10+i)
		}
		if homogeneous {
			m.Topics = slices.Clone(topics)
		} else {
			for _, t := range topics {
				if rng.IntN(2) == 0 {
					m.Topics = append(m.Topics, t)
				}
			}
			if len(m.Topics) == 0 {
				m.Topics = []string{topics[rng.IntN(len(topics))]}
			}
		}
		g.Members = append(g.Members, m)
	}
	for _, t := range topics {
		for p := range g.Topics[t] {
			if rng.IntN(4) == 0 {
				continue
			}
			i := rng.IntN(nm)
			if !slices.Contains(g.Members[i].Topics, t) && rng.IntN(4) != 0 {
				continue
			}
			m := &g.Members[i]
			if m.Owned == nil {
				m.Owned = map[string][]int32{}
			}
			m.Owned[t] = append(m.Owned[t], p)
		}
	}
	return g
}

// forEachGroup runs f on n seeded random groups, half homogeneous.
func forEachGroup(t *testing.T, seed uint64, n int, f func(t *testing.T, g *Group)) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range n {
		g := randomGroup(rng, i%2 == 0)
		if err := g.Validate(); err != nil {
			t.Fatalf("group %d: generator made an invalid group: %v", i, err)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { f(t, g) })
		if t.Failed() {
			t.Logf("group: %+v", *g)
			return
		}
	}
}

// checkValid: every partition of a subscribed topic is assigned once
// (complete) or at most once, and only to a subscriber; every member has
// an entry.
func checkValid(t *testing.T, g *Group, a Assignment, complete bool) {
	t.Helper()
	if len(a) != len(g.Members) {
		t.Errorf("assignment has %d members, group %d", len(a), len(g.Members))
	}
	seen := map[TopicPartition]string{}
	for _, m := range g.Members {
		topics, ok := a[m.ID]
		if !ok {
			t.Errorf("member %s missing from the assignment", m.ID)
		}
		prev := ""
		for topic, ps := range topics.All() {
			if prev != "" && prev >= topic {
				t.Errorf("member %s: topics %s and %s out of order or repeated", m.ID, prev, topic)
			}
			prev = topic
			if len(ps) == 0 {
				t.Errorf("member %s: an empty entry for %s", m.ID, topic)
			}
			if !slices.Contains(m.Topics, topic) {
				t.Errorf("member %s got %s %v but does not subscribe to it", m.ID, topic, ps)
			}
			if !slices.IsSorted(ps) {
				t.Errorf("member %s: %s partitions %v not sorted", m.ID, topic, ps)
			}
			for _, p := range ps {
				tp := TopicPartition{topic, p}
				if p < 0 || p >= g.Topics[topic] {
					t.Errorf("member %s got %v, which does not exist", m.ID, tp)
				}
				if other, dup := seen[tp]; dup {
					t.Errorf("%v assigned to both %s and %s", tp, other, m.ID)
				}
				seen[tp] = m.ID
			}
		}
	}
	if !complete {
		return
	}
	for topic, n := range g.Topics {
		if !slices.ContainsFunc(g.Members, func(m Member) bool { return slices.Contains(m.Topics, topic) }) {
			continue
		}
		for p := range n {
			if _, ok := seen[TopicPartition{topic, p}]; !ok {
				t.Errorf("%s-%d not assigned", topic, p)
			}
		}
	}
}

// checkStickyBalance is the sticky assignors' balance rule: partition
// counts differ by at most one, or a member with two or more fewer
// partitions than another cannot take any of that member's partitions
// (it does not subscribe to their topics).
func checkStickyBalance(t *testing.T, g *Group, a Assignment) {
	t.Helper()
	owner := a.Owners()
	for _, m := range g.Members {
		for tp, o := range owner {
			if a.Count(o) >= a.Count(m.ID)+2 && slices.Contains(m.Topics, tp.Topic) {
				t.Errorf("%s has %d partitions, %s has %d, and %s could take %v", m.ID, a.Count(m.ID), o, a.Count(o), m.ID, tp)
				return
			}
		}
	}
}

func homogeneous(g *Group) bool {
	return newSpec(g, 0).homogeneous
}

func TestAllStrategiesValidAndDeterministic(t *testing.T) {
	for _, a := range assignors {
		t.Run(a.Name(), func(t *testing.T) {
			forEachGroup(t, 1, 300, func(t *testing.T, g *Group) {
				got := a.Assign(g)
				checkValid(t, g, got, a.Protocol() != Cooperative)
				if again := a.Assign(g); !equalAssignments(got, again) {
					t.Errorf("two runs differ:\n%v\n%v", got, again)
				}
				rounds := Converge(a, g)
				checkValid(t, g, rounds[len(rounds)-1], true)
			})
		})
	}
}

// Range (both protocols): per topic, subscribers in MemberInfo order get
// count/n, the first count%n one more, in contiguous ranges.
func TestRangeRule(t *testing.T) {
	for _, a := range []Assignor{Range, ConsumerRange} {
		t.Run(a.Name(), func(t *testing.T) {
			forEachGroup(t, 2, 300, func(t *testing.T, g *Group) {
				got := a.Assign(g)
				l := NewSpec(g)
				for ti, topic := range l.topics {
					var subs []int32
					for _, m := range l.memberInfoOrder() {
						if l.subscribes(int(m), int32(ti)) {
							subs = append(subs, m)
						}
					}
					n := int32(len(subs))
					next := int32(0)
					for i, m := range subs {
						want := l.counts[ti] / n
						if int32(i) < l.counts[ti]%n {
							want++
						}
						ps := got[l.members[m]].Partitions(topic)
						if int32(len(ps)) != want {
							t.Fatalf("%s: member %s (position %d of %d) has %d partitions, want %d", topic, l.members[m], i, n, len(ps), want)
						}
						for _, p := range ps {
							if p != next {
								t.Fatalf("%s: member %s has %v, want a range starting at %d", topic, l.members[m], ps, next)
							}
							next++
						}
					}
				}
				// The order of the input does not matter.
				shuffled := *g
				shuffled.Members = slices.Clone(g.Members)
				slices.Reverse(shuffled.Members)
				if other := a.Assign(&shuffled); !equalAssignments(got, other) {
					t.Errorf("member order changed the result")
				}
			})
		})
	}
}

// Roundrobin: with identical subscriptions, counts differ by at most one,
// and the input order does not matter.
func TestRoundRobinRule(t *testing.T) {
	forEachGroup(t, 3, 300, func(t *testing.T, g *Group) {
		got := RoundRobin.Assign(g)
		if homogeneous(g) {
			if s := SkewOf(g, got); s.Spread > 1 {
				t.Errorf("identical subscriptions, spread %d: %v", s.Spread, got)
			}
		}
		shuffled := *g
		shuffled.Members = slices.Clone(g.Members)
		slices.Reverse(shuffled.Members)
		if other := RoundRobin.Assign(&shuffled); !equalAssignments(got, other) {
			t.Errorf("member order changed the result")
		}
	})
}

// Sticky, cooperative-sticky (after convergence) and uniform: the balance
// rule, and stickiness: with identical subscriptions, exactly the fewest
// moves a balanced assignment needs; always at least that many.
func TestStickyRules(t *testing.T) {
	for _, a := range []Assignor{Sticky, CooperativeSticky, ConsumerUniform} {
		t.Run(a.Name(), func(t *testing.T) {
			forEachGroup(t, 4, 400, func(t *testing.T, g *Group) {
				rounds := Converge(a, g)
				final := rounds[len(rounds)-1]
				checkStickyBalance(t, g, final)
				mv := Measure(g, final)
				if mv.Moves < mv.MinMoves {
					t.Errorf("moved %d partitions, fewer than the minimum %d: the minimum is wrong", mv.Moves, mv.MinMoves)
				}
				if homogeneous(g) && a.Name() != "consumer-uniform" && mv.Moves != mv.MinMoves {
					t.Errorf("moved %d partitions, the minimum is %d", mv.Moves, mv.MinMoves)
				}
			})
		})
	}
}

// Uniform (homogeneous): no member loses a partition it could keep within
// its quota.
func TestUniformKeepsWithinQuota(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	for range 300 {
		g := randomGroup(rng, true)
		got := ConsumerUniform.Assign(g)
		n := len(g.Members)
		total := 0
		for _, c := range g.Topics {
			total += int(c)
		}
		q := total / n
		for _, m := range g.Members {
			kept := 0
			owned := 0
			for topic, ps := range m.Owned {
				for _, p := range ps {
					owned++
					if slices.Contains(got[m.ID].Partitions(topic), p) {
						kept++
					}
				}
			}
			if kept < min(owned, q) {
				t.Fatalf("%s owned %d, kept %d, quota at least %d", m.ID, owned, kept, q)
			}
		}
	}
}

// Cooperative-sticky's two-phase rule: a partition that changes owner is
// revoked in one generation (its old owner gives it up and nobody gets it)
// and assigned in the next: no rebalance hands a partition directly from
// one member to another. The rebalances go on until nothing is withheld.
func TestCooperativeTwoPhase(t *testing.T) {
	forEachGroup(t, 6, 400, func(t *testing.T, g *Group) {
		rounds := Converge(CooperativeSticky, g)
		prev := map[TopicPartition]string{}
		for _, m := range g.Members {
			for topic, ps := range m.Owned {
				for _, p := range ps {
					prev[TopicPartition{topic, p}] = m.ID
				}
			}
		}
		l := newSpec(g, 0)
		moved := 0
		for r, round := range rounds {
			next := round.Owners()
			for tp, was := range prev {
				if now, ok := next[tp]; ok && now != was {
					t.Errorf("generation %d hands %v from %s to %s directly", r+1, tp, was, now)
				}
				if _, subscribed := l.topicNumber(tp.Topic); !subscribed {
					continue
				}
				if _, ok := next[tp]; !ok && r == 0 {
					moved++
				}
			}
			prev = next
		}
		if !complete(g, rounds[len(rounds)-1]) {
			t.Errorf("still incomplete after %d rounds", len(rounds))
		}
		if moved > 0 && len(rounds) < 2 {
			t.Errorf("%d partitions revoked but only %d round", moved, len(rounds))
		}
	})
}

// The seeds' examples and the Javadoc examples of Kafka's assignors.
func TestKnownAnswers(t *testing.T) {
	members := func(n int, topics ...string) []Member {
		var out []Member
		for i := range n {
			out = append(out, Member{ID: fmt.Sprintf("c%d", i), Topics: topics})
		}
		return out
	}
	counts := func(g *Group, a Assignment) []int {
		var out []int
		for _, m := range g.Members {
			out = append(out, a.Count(m.ID))
		}
		return out
	}
	g := &Group{Topics: map[string]int32{"t0": 7}, Members: members(3, "t0")}
	if got := counts(g, Range.Assign(g)); !slices.Equal(got, []int{3, 2, 2}) {
		t.Errorf("range 7 partitions / 3 members: %v, want [3 2 2]", got)
	}
	g = &Group{Topics: map[string]int32{"t0": 3}, Members: members(2, "t0")}
	if got := Range.Assign(g); !slices.Equal(got["c0"].Partitions("t0"), []int32{0, 1}) || !slices.Equal(got["c1"].Partitions("t0"), []int32{2}) {
		t.Errorf("range 3 partitions / 2 members: %v, want c0 [0 1], c1 [2]", got)
	}
	if got := RoundRobin.Assign(g); !slices.Equal(got["c0"].Partitions("t0"), []int32{0, 2}) || !slices.Equal(got["c1"].Partitions("t0"), []int32{1}) {
		t.Errorf("roundrobin 3 partitions / 2 members: %v, want c0 [0 2], c1 [1]", got)
	}
	// Three topics of 1, 2, 3 partitions; C0 subscribes to t0, C1 to t0
	// and t1, C2 to all three.
	g = &Group{
		Topics: map[string]int32{"t0": 1, "t1": 2, "t2": 3},
		Members: []Member{
			{ID: "C0", Topics: []string{"t0"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
			{ID: "C2", Topics: []string{"t0", "t1", "t2"}},
		},
	}
	want := map[string]string{
		"roundrobin": "C0:map[t0:[0]] C1:map[t1:[0]] C2:map[t1:[1] t2:[0 1 2]]",
		"sticky":     "C0:map[t0:[0]] C1:map[t1:[0 1]] C2:map[t2:[0 1 2]]",
	}
	for name, w := range want {
		a, _ := Lookup(name)
		got := a.Assign(g)
		if s := fmt.Sprintf("C0:%v C1:%v C2:%v", got["C0"], got["C1"], got["C2"]); s != w {
			t.Errorf("%s: %s, want %s", name, s, w)
		}
	}
	// Static members sort first, by instance id, in range and roundrobin.
	g = &Group{Topics: map[string]int32{"t0": 3}, Members: []Member{
		{ID: "a", Topics: []string{"t0"}},
		{ID: "b", Topics: []string{"t0"}, InstanceID: "z"},
		{ID: "c", Topics: []string{"t0"}, InstanceID: "y"},
	}}
	if got := Range.Assign(g); !slices.Equal(got["c"].Partitions("t0"), []int32{0}) || !slices.Equal(got["b"].Partitions("t0"), []int32{1}) || !slices.Equal(got["a"].Partitions("t0"), []int32{2}) {
		t.Errorf("range with static members: %v, want c [0] (instance y), b [1] (z), a [2]", got)
	}
}

func TestJavaHashMapOrder(t *testing.T) {
	// Known String.hashCode values.
	for s, want := range map[string]int32{"": 0, "a": 97, "t0": 3644} {
		if got := javaStringHash(s); got != want {
			t.Errorf("hash(%q) = %d, want %d", s, got, want)
		}
	}
	if got := javaStringHash("polygenelubricants"); got != -2147483648 {
		t.Errorf("hash(polygenelubricants) = %d, want Integer.MIN_VALUE", got)
	}
	if got := javaTopicPartitionHash(javaStringHash("t0"), 3); got != 4698 {
		t.Errorf("TopicPartition(t0, 3).hashCode = %d, want 4698", got)
	}
	// "Aa" and "BB" collide (2112, bucket 0 of 16): insertion order;
	// then "a" (97, bucket 1) and "b" (98, bucket 2).
	if got := javaHashMapOrder([]string{"BB", "b", "Aa", "a"}); !slices.Equal(got, []int32{0, 2, 3, 1}) {
		t.Errorf("order = %v, want [0 2 3 1]", got)
	}
}

// sortByKey orders as a comparison of the strings does, whatever the
// shared prefix, the lengths and the ties within its 8-byte windows.
func TestSortByKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 7))
	alphabet := []string{"", "a", "b", "consumer-", "consumer-1", "\x00", "\xff", "-", "12345678", "1234567"}
	for round := range 500 {
		n := 1 + rng.IntN(300)
		keys := make([]string, n)
		seen := map[string]bool{}
		for i := range keys {
			for {
				var b []byte
				for range rng.IntN(5) {
					b = append(b, alphabet[rng.IntN(len(alphabet))]...)
				}
				if round%2 == 0 {
					b = append([]byte("shared-prefix-"), b...)
				}
				if k := string(b); !seen[k] {
					seen[k] = true
					keys[i] = k
					break
				}
			}
		}
		members := make([]int32, n)
		for i := range members {
			members[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { members[i], members[j] = members[j], members[i] })
		want := slices.Clone(members)
		slices.SortFunc(want, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
		sortByKey(members, keys)
		if !slices.Equal(members, want) {
			t.Fatalf("round %d: sortByKey gave %q, want %q", round, pick(keys, members), pick(keys, want))
		}
	}
}

func pick(keys []string, members []int32) []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = keys[m]
	}
	return out
}

// Every entry point gives the same assignment: Assign, Place, and
// AssignSpec on a Spec from NewSpec (which precomputes the member order
// and the owners the others compute); a Placement lists each member's
// partitions ascending, and its Owners agree.
func TestEntryPointsAgree(t *testing.T) {
	for _, a := range assignors {
		t.Run(a.Name(), func(t *testing.T) {
			forEachGroup(t, 9, 300, func(t *testing.T, g *Group) {
				want := a.Assign(g)
				spec := NewSpec(g)
				for name, p := range map[string]*Placement{"Place": a.Place(g), "AssignSpec": a.AssignSpec(spec)} {
					if got := p.Assignment(); !equalAssignments(got, want) {
						t.Fatalf("%s: %v, Assign: %v", name, got, want)
					}
					owners := p.Owners()
					for i := range spec.NumMembers() {
						ps := p.Member(i)
						if !slices.IsSorted(ps) {
							t.Fatalf("%s: member %d: %v not ascending", name, i, ps)
						}
						for _, gp := range ps {
							if owners[gp] != int32(i) {
								t.Fatalf("%s: partition %d: owner %d, listed under member %d", name, gp, owners[gp], i)
							}
						}
					}
				}
			})
		})
	}
}

// A Spec is read-only: assignments of one Spec in parallel (under -race)
// give what one at a time gives.
func TestSpecConcurrentUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 7))
	for _, homogeneous := range []bool{true, false} {
		spec := NewSpec(randomGroup(rng, homogeneous))
		for _, a := range assignors {
			want := a.AssignSpec(spec).Assignment()
			done := make(chan Assignment)
			for range 4 {
				go func() { done <- a.AssignSpec(spec).Assignment() }()
			}
			for range 4 {
				if got := <-done; !equalAssignments(got, want) {
					t.Errorf("%s: concurrent assignment %v, alone %v", a.Name(), got, want)
				}
			}
		}
	}
}

// A group without members (which Validate rejects) gets an empty
// assignment, not a panic.
func TestNoMembers(t *testing.T) {
	g := &Group{Topics: map[string]int32{"t0": 3}}
	for _, a := range assignors {
		if got := a.Assign(g); len(got) != 0 {
			t.Errorf("%s: %v, want an empty assignment", a.Name(), got)
		}
		if p := a.AssignSpec(NewSpec(g)); p.Spec().NumMembers() != 0 {
			t.Errorf("%s: a placement of %d members", a.Name(), p.Spec().NumMembers())
		}
	}
}

// Members share a subscription class when they subscribe to the same set
// of names, whether the topics exist or not, in any order; Kafka's
// homogeneous test compares the same sets. Both ways of keying the sets
// (bit sets up to 64 topics, names beyond or with unknown topics) agree.
func TestSubscriptionClasses(t *testing.T) {
	for _, topics := range []int{3, 64, 65, 100} {
		g := &Group{Topics: map[string]int32{}}
		var names []string
		for i := range topics {
			name := fmt.Sprintf("t%03d", i)
			names = append(names, name)
			g.Topics[name] = 2
		}
		reversed := slices.Clone(names)
		slices.Reverse(reversed)
		for _, c := range []struct {
			subs        [][]string
			classes     int
			homogeneous bool
		}{
			{[][]string{{names[0], names[1]}, {names[1], names[0]}}, 1, true},
			{[][]string{{names[0], "ghost"}, {"ghost", names[0]}}, 1, true},
			{[][]string{{names[0], "ghost"}, {names[0]}}, 2, false},
			{[][]string{{names[0]}, {names[1]}, {names[0]}, {"ghost", names[1]}, {names[1], "ghost"}}, 3, false},
			{[][]string{names, reversed, {names[2]}}, 2, false},
		} {
			g.Members = nil
			for i, s := range c.subs {
				g.Members = append(g.Members, Member{ID: fmt.Sprintf("c%d", i), Topics: s})
			}
			spec := NewSpec(g)
			classes := slices.Max(spec.class) + 1
			if int(classes) != c.classes || spec.homogeneous != c.homogeneous {
				t.Errorf("%d topics, subscriptions %v: %d classes, homogeneous %v; want %d, %v",
					topics, c.subs, classes, spec.homogeneous, c.classes, c.homogeneous)
			}
			// A topic's number: its place among the subscribed topics;
			// none for a topic nobody subscribes to or without a count.
			for _, name := range append(slices.Clone(names), "ghost") {
				want := int32(slices.Index(spec.topics, name))
				if got, ok := spec.topicNumber(name); ok != (want >= 0) || ok && got != want {
					t.Errorf("%d topics: topicNumber(%s) = %d, %v; want %d", topics, name, got, ok, want)
				}
			}
			for m, s := range c.subs {
				for ti, name := range spec.topics {
					if got, want := spec.subscribes(m, int32(ti)), slices.Contains(s, name); got != want {
						t.Errorf("%d topics: member %d subscribes to %s: %v, want %v", topics, m, name, got, want)
					}
				}
			}
		}
	}
	// Many subscriptions (the classifier's table grows): members with the
	// same set share a class, whatever the order.
	g := &Group{Topics: map[string]int32{"a": 1, "b": 1, "c": 1, "d": 1}}
	names := []string{"a", "b", "c", "d"}
	for i := range 45 {
		var sub []string
		for b, name := range names {
			if (i%15+1)&(1<<b) != 0 {
				sub = append(sub, name)
			}
		}
		if i >= 30 {
			slices.Reverse(sub)
		}
		g.Members = append(g.Members, Member{ID: fmt.Sprint(i), Topics: sub})
	}
	spec := NewSpec(g)
	for i := range 45 {
		if spec.class[i] != spec.class[i%15] {
			t.Fatalf("classes %v: member %d's is not member %d's", spec.class, i, i%15)
		}
	}
	if classes := slices.Max(spec.class) + 1; classes != 15 || spec.homogeneous {
		t.Errorf("%d classes, homogeneous %v; want 15, false", classes, spec.homogeneous)
	}
}

// A Spec's owned partitions are, per member, every owned partition of a
// numbered topic, ascending, whatever order the member lists them in and
// whether or not it still subscribes to their topic (the compilation looks
// subscribed topics up in order and ranges over the rest).
func TestSpecOwned(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 7))
	for i := range 400 {
		g := randomGroup(rng, i%2 == 0)
		g.Topics["unsubscribed"] = 4
		for j := range g.Members {
			m := &g.Members[j]
			for _, ps := range m.Owned {
				rng.Shuffle(len(ps), func(a, b int) { ps[a], ps[b] = ps[b], ps[a] })
			}
			if rng.IntN(8) == 0 {
				if m.Owned == nil {
					m.Owned = map[string][]int32{}
				}
				m.Owned["unsubscribed"] = []int32{int32(j % 4)}
			}
		}
		spec := NewSpec(g)
		for j, m := range g.Members {
			var want []int32
			for name, ps := range m.Owned {
				if ti, ok := spec.topicNumber(name); ok {
					for _, p := range ps {
						want = append(want, spec.offset[ti]+p)
					}
				}
			}
			slices.Sort(want)
			if got := spec.owned(j); !slices.Equal(got, want) {
				t.Fatalf("group %d, member %d (topics %v, owned %v): owned %v, want %v", i, j, m.Topics, m.Owned, got, want)
			}
		}
	}
}
