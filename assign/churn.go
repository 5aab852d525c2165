package assign

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/clip"
)

// A churn script describes how a group changes, one step per line: each
// step applies its changes and then the group rebalances.
//
//	# comments and blank lines are ignored
//	topic t0 12                 # a topic with 12 partitions, or more partitions for it
//	join c0..c5 t0,t1           # members c0 to c5 join, subscribing to t0 and t1
//	leave c3                    # c3 leaves (or is declared dead)
//	join c6 t0; leave c0,c1     # several changes, one rebalance
//
// Member lists are comma-separated ids; PREFIX<a>..PREFIX<b> expands to
// PREFIX<a>, PREFIX<a+1>, ..., PREFIX<b> (the member ids Kafka sorts are
// strings: c10 sorts before c2).
type Script struct {
	Steps []ScriptStep
}

// ScriptStep is one line of a script: its changes, then a rebalance.
type ScriptStep struct {
	Line    int
	Text    string
	Changes []Change
}

// Change is one change of the group.
type Change struct {
	Kind       string   // "topic", "join", "leave"
	Members    []string // join, leave
	Topics     []string // join: the subscription
	Topic      string   // topic
	Partitions int32    // topic
}

// ScriptError is a bad line of a script.
type ScriptError struct {
	Name string
	Line int
	Err  string
}

func (e *ScriptError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Err) }

// maxScriptLine bounds a line of a churn script: a step is a few changes,
// and a member range names thousands of members in a few bytes.
const maxScriptLine = 1 << 20

// ParseScript reads a churn script; name is used in errors.
func ParseScript(r io.Reader, name string) (*Script, error) {
	s := &Script{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxScriptLine)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		step := ScriptStep{Line: line, Text: text}
		for _, part := range strings.Split(text, ";") {
			c, err := parseChange(strings.Fields(part))
			if err != nil {
				return nil, &ScriptError{name, line, err.Error()}
			}
			step.Changes = append(step.Changes, c)
		}
		s.Steps = append(s.Steps, step)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ScriptError{name, line + 1, fmt.Sprintf("line longer than %d bytes", maxScriptLine)}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(s.Steps) == 0 {
		return nil, &ScriptError{name, line, "no steps; expected lines like `join c0..c3 t0`"}
	}
	return s, nil
}

func parseChange(f []string) (Change, error) {
	if len(f) == 0 {
		return Change{}, fmt.Errorf("empty change between semicolons")
	}
	switch f[0] {
	case "topic":
		if len(f) != 3 {
			return Change{}, fmt.Errorf("topic: expected `topic NAME PARTITIONS`")
		}
		if err := checkName("topic name", f[1]); err != nil {
			return Change{}, fmt.Errorf("topic: %v", err)
		}
		n, err := strconv.ParseInt(f[2], 10, 32)
		if err != nil || n <= 0 || n > MaxPartitions {
			return Change{}, fmt.Errorf("topic %s: partition count %s; expected 1 to %d", clip.String(f[1]), clip.Quote(f[2]), MaxPartitions)
		}
		return Change{Kind: "topic", Topic: f[1], Partitions: int32(n)}, nil
	case "join":
		if len(f) != 3 {
			return Change{}, fmt.Errorf("join: expected `join MEMBER[,MEMBER...] TOPIC[,TOPIC...]`")
		}
		members, err := expandMembers(f[1])
		if err != nil {
			return Change{}, err
		}
		topics := strings.Split(f[2], ",")
		for _, t := range topics {
			if err := checkName("topic name", t); err != nil {
				return Change{}, fmt.Errorf("join: %v", err)
			}
		}
		return Change{Kind: "join", Members: members, Topics: topics}, nil
	case "leave":
		if len(f) != 2 {
			return Change{}, fmt.Errorf("leave: expected `leave MEMBER[,MEMBER...]`")
		}
		members, err := expandMembers(f[1])
		if err != nil {
			return Change{}, err
		}
		return Change{Kind: "leave", Members: members}, nil
	}
	return Change{}, fmt.Errorf("unknown change %s; expected topic, join or leave", clip.Quote(f[0]))
}

// expandMembers expands "c0,c2..c4" to c0, c2, c3, c4.
func expandMembers(s string) ([]string, error) {
	var out []string
	for _, item := range strings.Split(s, ",") {
		from, to, isRange := strings.Cut(item, "..")
		if item == "" || isRange && (from == "" || to == "") {
			return nil, fmt.Errorf("member list %s: empty member id", clip.Quote(s))
		}
		if !isRange {
			out = append(out, item)
			continue
		}
		pa, a := splitNumber(from)
		pb, b := splitNumber(to)
		if a < 0 || b < 0 || pa != pb || b < a {
			return nil, fmt.Errorf("member range %s: expected PREFIX<a>..PREFIX<b> with a <= b", clip.Quote(item))
		}
		if b-a >= MaxMembers {
			return nil, fmt.Errorf("member range %s: more than %d members", clip.Quote(item), MaxMembers)
		}
		for i := a; i <= b; i++ {
			out = append(out, pa+strconv.Itoa(i))
		}
	}
	return out, nil
}

func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) {
		return s, -1
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return s, -1
	}
	return s[:i], n
}

// StepResult is what one step of a churn script cost.
type StepResult struct {
	Step       int    `json:"step"`
	Line       int    `json:"line"`
	Change     string `json:"change"`
	Members    int    `json:"members"`
	Partitions int    `json:"partitions"` // partitions the group's subscriptions cover
	Skew       Skew   `json:"skew"`
	Movement
	// Revoked is how many partitions members that stayed had to give up
	// during the rebalance: under eager protocols everything they owned
	// (the whole group stops); otherwise only what changed owner.
	Revoked int `json:"revoked"`
	// Rounds is how many rebalance rounds the step took: 1 for eager
	// protocols; 2 for cooperative-sticky when a partition changed owner
	// (revoke, then assign); for the consumer protocol, 2 when a partition
	// changed owner (the old owner's revocation must be acknowledged
	// before the new owner gets it).
	Rounds int `json:"rounds"`
	// Assignment is the group's assignment after the step.
	Assignment Assignment `json:"assignment,omitempty"`
}

// Simulate runs a churn script against a strategy, from start (nil: an
// empty group) and returns each step's result. keepAssignments fills
// StepResult.Assignment.
func Simulate(a Assignor, start *Group, s *Script, name string, keepAssignments bool) ([]StepResult, error) {
	g := &Group{Topics: map[string]int32{}}
	if start != nil {
		g.Topics = maps.Clone(start.Topics)
		g.Members = slices.Clone(start.Members)
	}
	var out []StepResult
	for i, step := range s.Steps {
		prevOwner := ownedBy(g)
		for _, c := range step.Changes {
			if err := apply(g, c); err != nil {
				return out, &ScriptError{name, step.Line, err.Error()}
			}
		}
		res := StepResult{Step: i + 1, Line: step.Line, Change: step.Text, Members: len(g.Members)}
		if len(g.Members) == 0 {
			out = append(out, res)
			continue
		}
		if err := g.Validate(); err != nil {
			return out, &ScriptError{name, step.Line, err.Error()}
		}
		final := res.rebalance(a, g, prevOwner)
		if keepAssignments {
			res.Assignment = final
		}
		out = append(out, res)
		for j := range g.Members {
			g.Members[j].Owned = final[g.Members[j].ID].Map()
		}
	}
	return out, nil
}

// ownedBy maps each partition the group's members own to its owner.
func ownedBy(g *Group) map[TopicPartition]string {
	owner := make(map[TopicPartition]string)
	for _, m := range g.Members {
		for t, ps := range m.Owned {
			for _, p := range ps {
				owner[TopicPartition{t, p}] = m.ID
			}
		}
	}
	return owner
}

// rebalance converges g under a, fills in what the step cost against
// what was owned before it (prevOwner, which knows the members that
// left), and returns the final assignment.
func (res *StepResult) rebalance(a Assignor, g *Group, prevOwner map[TopicPartition]string) Assignment {
	spec := newSpec(g, specOwned)
	res.Partitions = int(spec.total)
	rounds := Converge(a, g)
	final := rounds[len(rounds)-1]
	owners := final.Owners()
	present := make(map[string]bool, len(g.Members))
	for _, m := range g.Members {
		present[m.ID] = true
	}
	gone := 0
	for tp, was := range prevOwner {
		if _, ok := spec.topicNumber(tp.Topic); !ok {
			continue // nobody subscribes to the topic any more
		}
		res.Owned++
		if owners[tp] != was {
			res.Moves++
			if present[was] {
				res.Revoked++
			}
		}
		if !present[was] {
			gone++
		}
	}
	res.MinMoves, res.MinMovesExact = minMoves(spec, []int{gone})
	switch a.Protocol() {
	case Eager:
		res.Rounds = 1
		res.Revoked = 0
		for tp, was := range prevOwner {
			if present[was] {
				if _, ok := spec.topicNumber(tp.Topic); ok {
					res.Revoked++
				}
			}
		}
	case Cooperative:
		res.Rounds = len(rounds)
	case Consumer:
		res.Rounds = 1
		if res.Revoked > 0 {
			res.Rounds = 2
		}
	}
	res.Skew = SkewOf(g, final)
	return final
}

func apply(g *Group, c Change) error {
	switch c.Kind {
	case "topic":
		if n, ok := g.Topics[c.Topic]; ok && c.Partitions < n {
			return fmt.Errorf("topic %s: %d partitions; Kafka cannot reduce them from %d", c.Topic, c.Partitions, n)
		}
		g.Topics[c.Topic] = c.Partitions
	case "join":
		for _, id := range c.Members {
			if slices.ContainsFunc(g.Members, func(m Member) bool { return m.ID == id }) {
				return fmt.Errorf("join %s: already a member", id)
			}
			g.Members = append(g.Members, Member{ID: id, Topics: slices.Clone(c.Topics)})
		}
	case "leave":
		for _, id := range c.Members {
			i := slices.IndexFunc(g.Members, func(m Member) bool { return m.ID == id })
			if i < 0 {
				return fmt.Errorf("leave %s: not a member", id)
			}
			g.Members = slices.Delete(g.Members, i, i+1)
		}
	}
	return nil
}
