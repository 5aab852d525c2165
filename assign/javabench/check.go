package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/chaosbench/chaosbench/assign"
)

// crossCheck compares the models' assignments with the Java assignors' on
// n random groups and large larger ones.
func crossCheck(classpath, tmp string, n, large int, seed uint64) error {
	cases := checkCases(rand.New(rand.NewPCG(seed, 0xc0ffee)), n, large)
	path := filepath.Join(tmp, "check.txt")
	if err := writeCases(path, cases); err != nil {
		return err
	}
	out, err := java(context.Background(), classpath, "dump", path, strings.Join(assign.Names(), ","), "0", "1", "0", "1")
	if err != nil {
		return err
	}
	results := readDump(out)
	fmt.Printf("\ncross-check: %d random groups (1-4 topics, 1-10 members, mixed subscriptions, owned partitions, static members) and %d larger ones (20-300 members, 1-12 topics, up to 4,584 partitions, after a rebalance and churn), seed %d\n", n, large, seed)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tidentical\tdifferent\tjava error\t")
	var failed []string // the first 5 failures
	for _, name := range assign.Names() {
		same, diff, jerr := checkStrategy(name, cases, results, &failed)
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

// checkCases returns n random groups and large larger ones.
func checkCases(rng *rand.Rand, n, large int) []benchCase {
	var cases []benchCase
	for i := range n {
		cases = append(cases, benchCase{fmt.Sprintf("g%d", i), randomGroup(rng)})
	}
	for i := range large {
		cases = append(cases, benchCase{fmt.Sprintf("large%d", i), largeGroup(rng)})
	}
	return cases
}

// checkStrategy compares the strategy's model with the Java assignor's
// results on every case, by both entry points (from the group, and from
// its Spec), and counts the cases where they agree, differ, or Java
// failed. It appends failures to failed, up to 5 in all.
func checkStrategy(name string, cases []benchCase, java *dumpResults, failed *[]string) (same, diff, jerr int) {
	a, _ := assign.Lookup(name)
	fail := func(format string, args ...any) {
		if len(*failed) < 5 {
			*failed = append(*failed, fmt.Sprintf(format, args...))
		}
	}
	for _, c := range cases {
		key := c.name + "/" + name
		if e, ok := java.errors[key]; ok {
			jerr++
			fail("%s: java: %s", key, e)
			continue
		}
		d := compare(a.Assign(c.group), java.assignments[key])
		if d == "" {
			if d = compare(a.AssignSpec(assign.NewSpec(c.group)).Assignment(), java.assignments[key]); d != "" {
				d = "AssignSpec: " + d
			}
		}
		if d != "" {
			diff++
			fail("%s: %s", key, d)
			continue
		}
		same++
	}
	return same, diff, jerr
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
