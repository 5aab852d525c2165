// Command javabench runs chaosbench's assignor models and Kafka's own Java
// assignors on the same inputs, side by side, in one run: first a
// cross-check (identical assignments on random small groups), then a
// timing table with ratios. `make bench-assign` runs it.
//
//	go run ./assign/javabench [-check N] [-shapes quick|full|none|NAME,...] [-strategies all|NAME,...] [-seed S]
//
// It builds the Java timing program in this folder with Maven, passing
// -Dkafka.version from cluster.KafkaVersion, the one place the version is
// pinned.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"

	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/internal/cluster"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "javabench:", err)
		if errors.As(err, new(usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad flag (exit status 2).
type usageError string

func (e usageError) Error() string { return string(e) }

func run() error {
	check := flag.Int("check", 2000, "random groups to cross-check against the Java assignors (0: none)")
	checkLarge := flag.Int("check-large", 50, "larger random groups to cross-check (with -check above 0)")
	shapes := flag.String("shapes", "full", "timing shapes: quick (up to 2,125 members), full (up to 10,000 members, 100,000 partitions), none (the cross-check only) or a comma-separated list of shape names")
	strategies := flag.String("strategies", "all", "strategies to time: all or a comma-separated list")
	flag.DurationVar(&warmup, "warmup", warmup, "how long each side runs an assignor before timing it (the JVM compiles hot code meanwhile)")
	flag.DurationVar(&measureFor, "measure", measureFor, "how long each side goes on timing runs after the shape's minimum number of runs")
	seed := flag.Uint64("seed", 1, "seed of the random groups")
	javaTimeout := flag.Duration("java-timeout", 5*time.Minute, "how long one Java timing may take before it is reported as a timeout")
	dir := flag.String("dir", "", "the folder of pom.xml (default: this command's source folder)")
	keep := flag.Bool("keep", false, "keep the generated input files (their folder is printed)")
	flag.Parse()
	if flag.NArg() > 0 {
		return usageError(fmt.Sprintf("unexpected argument %q", flag.Arg(0)))
	}
	var list []shape
	switch *shapes {
	case "quick":
		list = quickShapes
	case "full":
		list = fullShapes
	case "none":
	default:
		for _, name := range strings.Split(*shapes, ",") {
			i := slices.IndexFunc(fullShapes, func(s shape) bool { return s.name == name })
			if i < 0 {
				return usageError(fmt.Sprintf("-shapes: unknown shape %q; expected quick, full, none or names from %s", name, shapeNames()))
			}
			list = append(list, fullShapes[i])
		}
	}
	names := assign.Names()
	if *strategies != "all" {
		names = strings.Split(*strategies, ",")
		for _, n := range names {
			if _, err := assign.Lookup(n); err != nil {
				return usageError("-strategies: " + err.Error())
			}
		}
	}

	if *dir == "" {
		_, file, _, _ := runtime.Caller(0)
		*dir = filepath.Dir(file)
	}
	classpath, err := build(*dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "assign-javabench-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Println("inputs kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	if *check > 0 {
		if err := crossCheck(classpath, tmp, *check, *checkLarge, *seed); err != nil {
			return err
		}
	}
	if len(list) == 0 {
		return nil
	}
	return timings(classpath, tmp, list, names, *seed, *javaTimeout)
}

// build packages the Java program and returns its class path.
func build(dir string) (string, error) {
	fmt.Printf("building the Java timing program (Kafka %s) in %s\n", cluster.KafkaVersion, dir)
	cmd := exec.Command("mvn", "-q", "-B", "-Dkafka.version="+cluster.KafkaVersion, "package")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("mvn package in %s: %w\n%s", dir, err, out)
	}
	deps, err := os.ReadFile(filepath.Join(dir, "target", "classpath.txt"))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "target", "classes") + string(os.PathListSeparator) + strings.TrimSpace(string(deps)), nil
}

// benchCase is one named group.
type benchCase struct {
	name  string
	group *assign.Group
}

// writeCases writes the Java program's input format (Main.java).
func writeCases(path string, cases []benchCase) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, c := range cases {
		fmt.Fprintf(w, "case %s\n", c.name)
		topics := make([]string, 0, len(c.group.Topics))
		for t := range c.group.Topics {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		for _, t := range topics {
			fmt.Fprintf(w, "topic %s %d\n", t, c.group.Topics[t])
		}
		for _, m := range c.group.Members {
			inst := m.InstanceID
			if inst == "" {
				inst = "-"
			}
			fmt.Fprintf(w, "member %s %s %s", m.ID, inst, strings.Join(m.Topics, ","))
			owned := make([]string, 0, len(m.Owned))
			for t := range m.Owned {
				owned = append(owned, t)
			}
			sort.Strings(owned)
			for _, t := range owned {
				if len(m.Owned[t]) == 0 {
					continue
				}
				ps := make([]string, len(m.Owned[t]))
				for i, p := range m.Owned[t] {
					ps[i] = strconv.Itoa(int(p))
				}
				fmt.Fprintf(w, " %s:%s", t, strings.Join(ps, ","))
			}
			w.WriteString("\n")
		}
		w.WriteString("end\n")
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func java(ctx context.Context, classpath string, args ...string) ([]byte, error) {
	full := append([]string{"-Xss16m", "-Xmx8g", "-cp", classpath, "chaosbench.assignbench.Main"}, args...)
	cmd := exec.CommandContext(ctx, "java", full...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, fmt.Errorf("java %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// crossCheck compares the models' assignments with the Java assignors' on
// n random groups.
func crossCheck(classpath, tmp string, n, large int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	var cases []benchCase
	for i := range n {
		cases = append(cases, benchCase{fmt.Sprintf("g%d", i), randomGroup(rng)})
	}
	for i := range large {
		cases = append(cases, benchCase{fmt.Sprintf("large%d", i), largeGroup(rng)})
	}
	path := filepath.Join(tmp, "check.txt")
	if err := writeCases(path, cases); err != nil {
		return err
	}
	out, err := java(context.Background(), classpath, "dump", path, strings.Join(assign.Names(), ","), "0", "1", "0", "1")
	if err != nil {
		return err
	}
	java := make(map[string]map[string]string) // case/strategy -> member -> "t:p,p ..."
	errs := make(map[string]string)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 5)
		switch {
		case len(f) >= 4 && f[0] == "assignment":
			key := f[1] + "/" + f[2]
			if java[key] == nil {
				java[key] = make(map[string]string)
			}
			rest := ""
			if len(f) == 5 {
				rest = f[4]
			}
			java[key][f[3]] = rest
		case len(f) >= 3 && f[0] == "error":
			errs[f[1]+"/"+f[2]] = strings.Join(f[3:], " ")
		}
	}
	fmt.Printf("\ncross-check: %d random groups (1-4 topics, 1-10 members, mixed subscriptions, owned partitions, static members) and %d larger ones (20-300 members, 1-12 topics, up to 4,584 partitions, after a rebalance and churn), seed %d\n", n, large, seed)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tidentical\tdifferent\tjava error\t")
	var failed []string
	for _, name := range assign.Names() {
		a, _ := assign.Lookup(name)
		same, diff, jerr := 0, 0, 0
		for _, c := range cases {
			key := c.name + "/" + name
			if e, ok := errs[key]; ok {
				jerr++
				if len(failed) < 5 {
					failed = append(failed, fmt.Sprintf("%s: java: %s", key, e))
				}
				continue
			}
			// Both entry points: from the group, and from its Spec.
			d := compare(a.Assign(c.group), java[key])
			if d == "" {
				if d = compare(a.AssignSpec(assign.NewSpec(c.group)).Assignment(), java[key]); d != "" {
					d = "AssignSpec: " + d
				}
			}
			if d != "" {
				diff++
				if len(failed) < 5 {
					failed = append(failed, fmt.Sprintf("%s: %s", key, d))
				}
				continue
			}
			same++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", name, same, diff, jerr)
	}
	tw.Flush()
	for _, f := range failed {
		fmt.Println("  ", f)
	}
	if len(failed) > 0 {
		return errors.New("the models and the Java assignors disagree (see above)")
	}
	return nil
}

func compare(got assign.Assignment, java map[string]string) string {
	if java == nil {
		return "no Java result"
	}
	for m, want := range java {
		if g := formatMember(got[m]); g != want {
			return fmt.Sprintf("member %s: model %q, java %q", m, g, want)
		}
	}
	if len(got) != len(java) {
		return fmt.Sprintf("model has %d members, java %d", len(got), len(java))
	}
	return ""
}

// formatMember formats a member's partitions as the Java side prints
// them: topics in name order, each as topic:p,p,...
func formatMember(topics assign.MemberAssignment) string {
	var b strings.Builder
	for t, ps := range topics.All() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		b.WriteByte(':')
		for j, p := range ps {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(p)))
		}
	}
	return b.String()
}

// randomGroup makes a small group with a random previous assignment, the
// kind of input where ties and corner cases show.
func randomGroup(rng *rand.Rand) *assign.Group {
	g := &assign.Group{Topics: map[string]int32{}}
	nt := 1 + rng.IntN(4)
	var topics []string
	for i := range nt {
		t := fmt.Sprintf("t%d", i)
		topics = append(topics, t)
		g.Topics[t] = int32(1 + rng.IntN(12))
	}
	nm := 1 + rng.IntN(10)
	same := rng.IntN(2) == 0
	for i := range nm {
		m := assign.Member{ID: randomID(rng, i)}
		if rng.IntN(5) == 0 {
			m.InstanceID = fmt.Sprintf("i%d", rng.IntN(100)*10+i)
		}
		if same {
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
		rng.Shuffle(len(m.Topics), func(a, b int) { m.Topics[a], m.Topics[b] = m.Topics[b], m.Topics[a] })
		g.Members = append(g.Members, m)
	}
	// A previous assignment: each partition owned by a random member (or
	// nobody), mostly one that subscribes to its topic.
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

// largeGroup makes a group of 20-300 members as a running group would
// be: a balanced previous assignment (sticky's, on the group before some
// members left, joined or changed their subscriptions), a few partitions
// added, some static members. Identical subscriptions half of the time.
func largeGroup(rng *rand.Rand) *assign.Group {
	g := &assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range 1 + rng.IntN(12) {
		t := fmt.Sprintf("topic-%d", i)
		topics = append(topics, t)
		g.Topics[t] = int32(1 + rng.IntN(333))
	}
	same := rng.IntN(2) == 0
	subscription := func() []string {
		if same {
			return topics
		}
		var out []string
		for _, t := range topics {
			if rng.IntN(3) != 0 {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			out = []string{topics[rng.IntN(len(topics))]}
		}
		return out
	}
	n := 20 + rng.IntN(281)
	for i := range n {
		m := assign.Member{ID: randomID(rng, i), Topics: subscription()}
		if rng.IntN(8) == 0 {
			m.InstanceID = fmt.Sprintf("host-%d", rng.IntN(1000000)*1000+i)
		}
		g.Members = append(g.Members, m)
	}
	prev := assign.Sticky.Assign(g)
	next := &assign.Group{Topics: g.Topics}
	for i, m := range g.Members {
		switch r := rng.IntN(10); {
		case r == 0: // left
			continue
		case r == 1: // replaced by a new member
			m = assign.Member{ID: randomID(rng, n+i), Topics: m.Topics}
		case r == 2 && !same: // changed its subscription, kept what it owned
			m.Owned = prev[m.ID].Map()
			m.Topics = subscription()
		default:
			m.Owned = prev[m.ID].Map()
		}
		next.Members = append(next.Members, m)
	}
	if len(next.Members) == 0 {
		next.Members = g.Members[:1]
	}
	for _, t := range topics {
		if rng.IntN(6) == 0 {
			next.Topics[t] += int32(rng.IntN(50))
		}
	}
	return next
}

// randomID makes member ids like the coordinator's: client id, a dash and
// a UUID, so that the Java HashMap orders are exercised.
func randomID(rng *rand.Rand, i int) string {
	return fmt.Sprintf("consumer-%d-%08x-%04x", i, rng.Uint32(), rng.Uint32()&0xffff)
}

// shape is a group size to time.
type shape struct {
	name          string
	members       int
	topics        int
	partitions    int  // per topic
	heterogeneous bool // members subscribe to different topic subsets
	runs          int
}

var quickShapes = []shape{
	{"100m-1k", 100, 10, 100, false, 9},
	{"100m-1k-het", 100, 10, 100, true, 9},
	{"1000m-10k", 1000, 10, 1000, false, 5},
	{"2125m-3160p", 2125, 4, 790, false, 5},
}

var fullShapes = append(slices.Clone(quickShapes),
	shape{"1000m-10k-het", 1000, 10, 1000, true, 3},
	shape{"5000m-50k", 5000, 10, 5000, false, 3},
	shape{"10000m-100k", 10000, 10, 10000, false, 3},
)

func shapeNames() string {
	var names []string
	for _, s := range fullShapes {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// shapeCases returns the shape's two cases: "fresh" (a new group, nothing
// owned) and "churn" (the group after a balanced assignment, with 10% of
// the members gone and as many new ones joined).
func shapeCases(s shape, rng *rand.Rand) []benchCase {
	g := &assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range s.topics {
		t := fmt.Sprintf("topic%02d", i)
		topics = append(topics, t)
		g.Topics[t] = int32(s.partitions)
	}
	for i := range s.members {
		m := assign.Member{ID: randomID(rng, i), Topics: topics}
		if s.heterogeneous {
			m.Topics = nil
			for _, t := range topics {
				if rng.IntN(2) == 0 {
					m.Topics = append(m.Topics, t)
				}
			}
			if len(m.Topics) == 0 {
				m.Topics = []string{topics[i%len(topics)]}
			}
		}
		g.Members = append(g.Members, m)
	}
	fresh := benchCase{s.name + "/fresh", g}
	// The previous assignment: round robin's, which is balanced.
	prev := assign.RoundRobin.Assign(g)
	churn := &assign.Group{Topics: g.Topics}
	for i, m := range g.Members {
		if i%10 == 0 {
			churn.Members = append(churn.Members, assign.Member{ID: randomID(rng, s.members+i), Topics: m.Topics})
			continue
		}
		m.Owned = prev[m.ID].Map()
		churn.Members = append(churn.Members, m)
	}
	return []benchCase{fresh, {s.name + "/churn", churn}}
}

// timings times the strategies named on the shapes. The groups of every
// shape of fullShapes are generated in order from the seed, so that a
// shape gets the same groups whichever shapes are timed.
func timings(classpath, tmp string, shapes []shape, strategies []string, seed uint64, javaTimeout time.Duration) error {
	rng := rand.New(rand.NewPCG(seed, 0xbe7c4))
	fmt.Printf("\ntimings: after a warm-up of %s (at least 2 runs; Java: and until its JIT compiler has been idle for 2s and its run times stopped improving, at most 60s), each side times single runs for %s (at least %d-%d runs, at most %d) on the same inputs and reports their median and minimum; Go %s, %s\n",
		warmup, measureFor, slices.MinFunc(shapes, func(a, b shape) int { return a.runs - b.runs }).runs, slices.MaxFunc(shapes, func(a, b shape) int { return a.runs - b.runs }).runs,
		maxRuns, runtime.Version(), javaVersion())
	fmt.Print(timedRegions)
	const row = "%-20s %7s %10s  %-18s %10s %10s %8s %10s %10s %8s %10s %7s\n"
	fmt.Printf(row, "shape", "members", "partitions", "strategy", "go", "java", "java/go", "go min", "java min", "min j/g", "go Assign", "j warm")
	for _, s := range fullShapes {
		cases := shapeCases(s, rng)
		if !slices.ContainsFunc(shapes, func(t shape) bool { return t.name == s.name }) {
			continue
		}
		for _, c := range cases {
			path := filepath.Join(tmp, "time.txt")
			if err := writeCases(path, []benchCase{c}); err != nil {
				return err
			}
			spec := assign.NewSpec(c.group)
			for _, name := range strategies {
				a, _ := assign.Lookup(name)
				goT := timeGo(a, c.group, spec, s.runs)
				goAssign := timeRuns(func() { a.Assign(c.group) }, s.runs)
				javaT, javaErr := timeJava(classpath, path, name, s.runs, javaTimeout)
				cells := []string{c.name, strconv.Itoa(len(c.group.Members)), strconv.Itoa(s.topics * s.partitions), name,
					dur(goT.median), "", "", dur(goT.min), "", "", dur(goAssign.median), ""}
				if javaErr != nil {
					cells[5] = javaErr.Error()
				} else {
					cells[5], cells[6] = dur(javaT.median), ratio(javaT.median, goT.median)
					cells[8], cells[9] = dur(javaT.min), ratio(javaT.min, goT.min)
					cells[11] = fmt.Sprintf("%.0f s", javaT.warmup.Seconds())
				}
				fmt.Printf(row, anys(cells)...)
			}
		}
	}
	return nil
}

func ratio(java, goNS int64) string { return fmt.Sprintf("%.1fx", float64(java)/float64(goNS)) }

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// timedRegions says what each side's timings include.
const timedRegions = `timed regions ("go" and "java" columns; "go Assign" is Go's Assign, names in, names out):
  classic (range, roundrobin, sticky, cooperative-sticky): names in, each member's partitions out.
    Java: assignor.assign(partitionsPerTopic, subscriptions), from a HashMap<String, Integer> and the
          leader's HashMap<String, Subscription> (topic lists, owned partitions or, for sticky, user
          data it decodes) to a Map<String, List<TopicPartition>>.
    Go:   Place(group), from a Group (topic counts, members with topic lists and owned
          map[topic][]partition), which it compiles, to a Placement (each member's partition numbers,
          in one flat array; a partition number is a topic and partition through the compiled group).
  consumer protocol (consumer-uniform, consumer-range): precomputed group in, target out.
    Java: assignor.assign(groupSpec, topicDescriber), from a GroupSpecImpl (members with subscribed topic
          id sets and current assignments, subscription type, partition owners) to a GroupAssignment
          (per member, a map of topic id to a partition set: RangeSets for range).
    Go:   AssignSpec(spec), from a Spec (NewSpec, not timed: members with subscribed topic numbers and
          owned partition numbers, subscription type, member order by id, partition owners) to a
          Placement.
  go Assign: Assign(group), from a Group to an Assignment (map[member]map[topic][]partition), for every
          strategy: Place, then the conversion of the Placement to names.
  j warm: how long the Java side warmed up.
`

// warmup is how long each side runs an assignor before timing it (at
// least two runs): the JVM's JIT compiles hot code after thousands of
// calls, and a benchmark of an interpreted assignor would flatter Go. On a
// busy machine the compiler threads get less time: -warmup gives them
// more.
var warmup = 3 * time.Second

// measureFor is how long each side goes on timing single runs after the
// shape's minimum number of runs, up to maxRuns: small shapes get
// thousands of runs, which steadies their median on a shared machine.
var measureFor = time.Second

const maxRuns = 100000

// timing is the median and the minimum of a side's runs, and how long
// the side warmed up.
type timing struct {
	median, min int64
	warmup      time.Duration
}

// timeGo times a on g as timedRegions says: the consumer protocol's
// strategies from the precomputed spec, the others from the group.
func timeGo(a assign.Assignor, g *assign.Group, spec *assign.Spec, runs int) timing {
	if a.Protocol() == assign.Consumer {
		return timeRuns(func() { a.AssignSpec(spec) }, runs)
	}
	return timeRuns(func() { a.Place(g) }, runs)
}

// timeRuns warms run up, then times it as the Java side times its runs.
func timeRuns(run func(), runs int) timing {
	until := time.Now().Add(warmup)
	for i := 0; i < 2 || time.Now().Before(until); i++ {
		run()
	}
	var ns []int64
	until = time.Now().Add(measureFor)
	for len(ns) < runs || len(ns) < maxRuns && time.Now().Before(until) {
		start := time.Now()
		run()
		ns = append(ns, time.Since(start).Nanoseconds())
	}
	slices.Sort(ns)
	return timing{median: ns[len(ns)/2], min: ns[0]}
}

func timeJava(classpath, path, strategy string, runs int, timeout time.Duration) (timing, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := java(ctx, classpath, "time", path, strategy, strconv.FormatInt(warmup.Milliseconds(), 10), strconv.Itoa(runs),
		strconv.FormatInt(measureFor.Milliseconds(), 10), strconv.Itoa(maxRuns))
	if errors.Is(err, context.DeadlineExceeded) {
		return timing{}, fmt.Errorf("over %s", timeout)
	}
	if err != nil {
		return timing{}, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 7 && f[0] == "time" {
			median, err1 := strconv.ParseInt(f[3], 10, 64)
			min, err2 := strconv.ParseInt(f[4], 10, 64)
			warm, err3 := strconv.ParseInt(f[6], 10, 64)
			return timing{median, min, time.Duration(warm) * time.Millisecond}, errors.Join(err1, err2, err3)
		}
		if len(f) >= 1 && f[0] == "error" {
			return timing{}, errors.New("error: " + strings.Join(f[3:], " "))
		}
	}
	return timing{}, fmt.Errorf("no time in the Java output: %q", out)
}

func dur(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}

func javaVersion() string {
	out, err := exec.Command("java", "-version").CombinedOutput()
	if err != nil {
		return "java: unknown version"
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}
