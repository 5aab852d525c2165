// Command javabench runs chaosbench's assignor models and Kafka's own Java
// assignors on the same inputs, side by side, in one run: first a
// cross-check (identical assignments on random small groups), then a
// timing table with ratios. `make bench-assign` runs it.
//
//	go run ./assign/javabench [-check N] [-shapes quick|full] [-seed S]
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
		os.Exit(1)
	}
}

func run() error {
	check := flag.Int("check", 600, "random groups to cross-check against the Java assignors (0: none)")
	shapes := flag.String("shapes", "full", "timing shapes: quick (up to 1,000 members) or full (up to 10,000 members, 100,000 partitions)")
	seed := flag.Uint64("seed", 1, "seed of the random groups")
	javaTimeout := flag.Duration("java-timeout", 5*time.Minute, "how long one Java timing may take before it is reported as a timeout")
	dir := flag.String("dir", "", "the folder of pom.xml (default: this command's source folder)")
	keep := flag.Bool("keep", false, "keep the generated input files (their folder is printed)")
	flag.Parse()

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
		if err := crossCheck(classpath, tmp, *check, *seed); err != nil {
			return err
		}
	}
	var list []shape
	switch *shapes {
	case "quick":
		list = quickShapes
	case "full":
		list = fullShapes
	default:
		return fmt.Errorf("-shapes %q: expected quick or full", *shapes)
	}
	return timings(classpath, tmp, list, *seed, *javaTimeout)
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
func crossCheck(classpath, tmp string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	var cases []benchCase
	for i := range n {
		cases = append(cases, benchCase{fmt.Sprintf("g%d", i), randomGroup(rng)})
	}
	path := filepath.Join(tmp, "check.txt")
	if err := writeCases(path, cases); err != nil {
		return err
	}
	out, err := java(context.Background(), classpath, "dump", path, strings.Join(assign.Names(), ","), "0", "1")
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
	fmt.Printf("\ncross-check: %d random groups (1-4 topics, 1-10 members, mixed subscriptions, owned partitions, static members), seed %d\n", n, seed)
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
			got := a.Assign(c.group)
			if d := compare(got, java[key]); d != "" {
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

func formatMember(topics map[string][]int32) string {
	names := make([]string, 0, len(topics))
	for t, ps := range topics {
		if len(ps) > 0 {
			names = append(names, t)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for i, t := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		b.WriteByte(':')
		for j, p := range topics[t] {
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
		m.Owned = prev[m.ID]
		churn.Members = append(churn.Members, m)
	}
	return []benchCase{fresh, {s.name + "/churn", churn}}
}

func timings(classpath, tmp string, shapes []shape, seed uint64, javaTimeout time.Duration) error {
	rng := rand.New(rand.NewPCG(seed, 0xbe7c4))
	fmt.Printf("\ntimings: median of %d-%d runs after %s of warm-up (at least 2 runs), each side on the same inputs; Go %s, %s\n",
		slices.MinFunc(shapes, func(a, b shape) int { return a.runs - b.runs }).runs, slices.MaxFunc(shapes, func(a, b shape) int { return a.runs - b.runs }).runs,
		warmup, runtime.Version(), javaVersion())
	const row = "%-20s %7s %10s  %-18s %10s %10s %8s\n"
	fmt.Printf(row, "shape", "members", "partitions", "strategy", "go", "java", "java/go")
	for _, s := range shapes {
		for _, c := range shapeCases(s, rng) {
			path := filepath.Join(tmp, "time.txt")
			if err := writeCases(path, []benchCase{c}); err != nil {
				return err
			}
			for _, name := range assign.Names() {
				a, _ := assign.Lookup(name)
				goNS := timeGo(a, c.group, s.runs)
				javaNS, javaErr := timeJava(classpath, path, name, s.runs, javaTimeout)
				ratio, javaCell := "", ""
				switch {
				case javaErr != nil:
					javaCell = javaErr.Error()
				default:
					javaCell = dur(javaNS)
					ratio = fmt.Sprintf("%.1fx", float64(javaNS)/float64(goNS))
				}
				fmt.Printf(row, c.name, strconv.Itoa(len(c.group.Members)), strconv.Itoa(s.topics*s.partitions), name, dur(goNS), javaCell, ratio)
			}
		}
	}
	return nil
}

// warmup is how long each side runs an assignor before timing it (at
// least two runs): the JVM's JIT compiles hot code after thousands of
// calls, and a benchmark of an interpreted assignor would flatter Go.
const warmup = 3 * time.Second

func timeGo(a assign.Assignor, g *assign.Group, runs int) int64 {
	until := time.Now().Add(warmup)
	for i := 0; i < 2 || time.Now().Before(until); i++ {
		a.Assign(g)
	}
	ns := make([]int64, runs)
	for i := range ns {
		start := time.Now()
		a.Assign(g)
		ns[i] = time.Since(start).Nanoseconds()
	}
	slices.Sort(ns)
	return ns[len(ns)/2]
}

func timeJava(classpath, path, strategy string, runs int, timeout time.Duration) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := java(ctx, classpath, "time", path, strategy, strconv.FormatInt(warmup.Milliseconds(), 10), strconv.Itoa(runs))
	if errors.Is(err, context.DeadlineExceeded) {
		return 0, fmt.Errorf("over %s", timeout)
	}
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[0] == "time" {
			return strconv.ParseInt(f[3], 10, 64)
		}
		if len(f) >= 1 && f[0] == "error" {
			return 0, errors.New("error: " + strings.Join(f[3:], " "))
		}
	}
	return 0, fmt.Errorf("no time in the Java output: %q", out)
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
