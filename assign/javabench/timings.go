package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/assign"
)

// timings times the strategies named on the shapes. The groups of every
// shape of fullShapes are generated in order from the seed, so that a
// shape gets the same groups whichever shapes are timed.
func timings(classpath, tmp string, shapes []shape, strategies []string, seed uint64, javaTimeout time.Duration) error {
	rng := rand.New(rand.NewPCG(seed, 0xbe7c4))
	fmt.Printf("\ntimings: after a warm-up of %s (at least 2 runs; Java: and until its JIT compiler has been idle for 2s and its run times stopped improving, at most 60s), each side times single runs for %s (at least %d-%d runs, at most %d) on the same inputs and reports their median, quartiles and minimum; Go %s, %s\n",
		warmup, measureFor, slices.MinFunc(shapes, func(a, b shape) int { return a.runs - b.runs }).runs, slices.MaxFunc(shapes, func(a, b shape) int { return a.runs - b.runs }).runs,
		maxRuns, runtime.Version(), javaVersion())
	fmt.Print(timedRegions)
	const row = "%-20s %7s %10s  %-18s %10s %10s %8s %10s %21s %21s %8s %8s %7s\n"
	fmt.Printf(row, "shape", "members", "partitions", "strategy", "go", "java", "java/go",
		"go Assign", "Assign p25-p75", "java p25-p75", "java/A", "min j/A", "j warm")
	var tally tally
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
					dur(goT.median), "", "", dur(goAssign.median), quartiles(goAssign), "", "", "", ""}
				if javaErr != nil {
					cells[5] = javaErr.Error()
					tally.missing++
				} else {
					cells[5], cells[6] = dur(javaT.median), ratio(javaT.median, goT.median)
					cells[9] = quartiles(javaT)
					cells[10] = ratio(javaT.median, goAssign.median)
					cells[11] = ratio(javaT.min, goAssign.min)
					cells[12] = fmt.Sprintf("%.0f s", javaT.warmup.Seconds())
					tally.add(c.name+" "+name, goT, goAssign, javaT)
				}
				fmt.Printf(row, anys(cells)...)
			}
		}
	}
	tally.print()
	return nil
}

// tally counts the rows on which each Go column is faster than Java.
type tally struct {
	rows, goFaster, assignFaster, assignClear int
	missing                                   int // rows without a Java time
	worst                                     []worstRow
}

// worstRow is a row and its java/Assign ratio of medians.
type worstRow struct {
	name  string
	ratio float64
}

func (t *tally) add(name string, goT, goAssign, javaT timing) {
	t.rows++
	if goT.median < javaT.median {
		t.goFaster++
	}
	if goAssign.median < javaT.median {
		t.assignFaster++
	}
	if goAssign.p75 < javaT.p25 {
		t.assignClear++
	}
	t.worst = append(t.worst, worstRow{name, float64(javaT.median) / float64(goAssign.median)})
}

// print prints the counts and the rows where Assign is closest to Java.
func (t *tally) print() {
	fmt.Printf("\ngo (Place or AssignSpec) faster than Java on %d of %d rows (medians)\n", t.goFaster, t.rows)
	fmt.Printf("Assign faster than Java on %d of %d rows (medians); on %d of them its 75th percentile is below Java's 25th\n",
		t.assignFaster, t.rows, t.assignClear)
	if t.missing > 0 {
		fmt.Printf("%d rows without a Java time are not counted\n", t.missing)
	}
	slices.SortStableFunc(t.worst, func(a, b worstRow) int { return cmp.Compare(a.ratio, b.ratio) })
	fmt.Print("lowest java/Assign:")
	for i, w := range t.worst[:min(5, len(t.worst))] {
		if i > 0 {
			fmt.Print(",")
		}
		fmt.Printf(" %s %.2fx", w.name, w.ratio)
	}
	fmt.Println()
}

// quartiles formats a side's spread, its 25th and 75th percentiles.
func quartiles(t timing) string { return dur(t.p25) + "-" + dur(t.p75) }

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
  go Assign: Assign(group), from a Group to an Assignment (member id -> its partitions by topic
          name), for every strategy, consumer protocol included: it compiles the group (as Place
          does), runs the model and converts the result to names.
  go, java, go Assign: medians; p25-p75: the spread, 25th to 75th percentile of the runs;
  java/go, java/A: ratios of medians (above 1: Go is faster); min j/A: java min / Assign min;
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

// timing is the median, minimum and quartiles of a side's runs, and how
// long the side warmed up.
type timing struct {
	median, min int64
	p25, p75    int64 // quartiles: the spread of the runs
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
	n := len(ns)
	return timing{median: ns[n/2], min: ns[0], p25: ns[n/4], p75: ns[3*n/4]}
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
		if len(f) >= 9 && f[0] == "time" {
			median, err1 := strconv.ParseInt(f[3], 10, 64)
			min, err2 := strconv.ParseInt(f[4], 10, 64)
			warm, err3 := strconv.ParseInt(f[6], 10, 64)
			p25, err4 := strconv.ParseInt(f[7], 10, 64)
			p75, err5 := strconv.ParseInt(f[8], 10, 64)
			return timing{median, min, p25, p75, time.Duration(warm) * time.Millisecond}, errors.Join(err1, err2, err3, err4, err5)
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
