package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/assign"
)

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

// java runs the Java program (Main.java) with args and returns its
// standard output.
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

// dumpResults is the output of the Java program's dump mode, by
// case/strategy.
type dumpResults struct {
	assignments map[string]map[string]string // member -> "t:p,p t:p ..." (topics sorted)
	errors      map[string]string            // the assignor's exception
}

// readDump reads the Java program's dump output.
func readDump(out []byte) *dumpResults {
	r := &dumpResults{assignments: map[string]map[string]string{}, errors: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 5)
		switch {
		case len(f) >= 4 && f[0] == "assignment":
			key := f[1] + "/" + f[2]
			if r.assignments[key] == nil {
				r.assignments[key] = make(map[string]string)
			}
			rest := ""
			if len(f) == 5 {
				rest = f[4]
			}
			r.assignments[key][f[3]] = rest
		case len(f) >= 3 && f[0] == "error":
			r.errors[f[1]+"/"+f[2]] = strings.Join(f[3:], " ")
		}
	}
	return r
}
