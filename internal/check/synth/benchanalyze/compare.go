package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
)

// build is a benchanalyze binary whose measurements the table shows:
// this one ("after"), and with -before one built from another revision.
type build struct {
	name, bin string
}

// measurement is one row of the table, each build's run in its own
// process.
type measurement struct {
	mode, name string
	env        []string
}

var measurements = []measurement{
	{"decode", "read: FileReader, one goroutine", nil},
	{"merger", "read: history.Merger", nil},
	{"analyze", "analyze (Merger + checks)", nil},
	{"analyze", "analyze, GOMAXPROCS=1", []string{"GOMAXPROCS=1"}},
}

// measureAll runs every measurement rounds times with every build and
// returns the results by measurement, build and round. Within a round the
// builds follow one another on each measurement, in an order that
// alternates from round to round, so that what the machine does
// meanwhile falls on both alike. The first round's analysis on two cores
// writes each build's summary; with two builds they must be identical.
func measureAll(cell string, builds []build, rounds int, profile, summary string) ([][][]result, error) {
	res := make([][][]result, len(measurements))
	for i := range res {
		res[i] = make([][]result, len(builds))
	}
	sums := map[string]string{} // build name: folder of its summary
	if len(builds) > 1 {
		// Under -summary, or in a folder of their own that goes after.
		root := summary
		if root == "" {
			tmp, err := os.MkdirTemp("", "benchanalyze-summaries-")
			if err != nil {
				return nil, err
			}
			defer os.RemoveAll(tmp)
			root = tmp
		}
		for _, b := range builds {
			sums[b.name] = filepath.Join(root, b.name)
		}
	}
	for round := range rounds {
		for i, m := range measurements {
			order := make([]int, len(builds))
			for j := range order {
				order[j] = j
			}
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, j := range order {
				b := builds[j]
				args := []string{"-measure", m.mode, "-dir", cell}
				if profile != "" && round == 0 {
					p := fmt.Sprintf("%s.%d", profile, i+1)
					if len(builds) > 1 {
						p = fmt.Sprintf("%s.%s.%d", profile, b.name, i+1)
					}
					args = append(args, "-cpuprofile", p)
				}
				if round == 0 && m.mode == "analyze" && m.env == nil {
					switch {
					case sums[b.name] != "":
						args = append(args, "-summary", sums[b.name])
					case summary != "":
						args = append(args, "-summary", summary)
					}
				}
				r, err := measureIn(b, m, args)
				if err != nil {
					return nil, err
				}
				res[i][j] = append(res[i][j], r)
				fmt.Fprintf(os.Stderr, "round %d/%d, %s, %s: %.2fs, %.2f CPU s\n", round+1, rounds, m.name, b.name, r.Seconds, r.CPU)
			}
			// The builds read the same history: the same events.
			for j := range builds {
				if got, want := res[i][j][round].Events, res[i][0][round].Events; got != want {
					return nil, fmt.Errorf("%s: %s counted %d events, %s %d", m.name, builds[j].name, got, builds[0].name, want)
				}
			}
		}
	}
	if len(builds) > 1 {
		for _, file := range []string{"summary.json", "latency.hlog"} {
			a, errA := os.ReadFile(filepath.Join(sums[builds[0].name], file))
			b, errB := os.ReadFile(filepath.Join(sums[builds[1].name], file))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				return nil, fmt.Errorf("the analysis's %s differs between %s and %s (%v, %v)", file, builds[0].name, builds[1].name, errA, errB)
			}
		}
		fmt.Fprintf(os.Stderr, "the analysis's summary.json and latency.hlog: the same bytes from %s and %s\n", builds[0].name, builds[1].name)
	}
	return res, nil
}

// measureIn runs one measurement in a child process of build b.
func measureIn(b build, m measurement, args []string) (result, error) {
	cmd := exec.Command(b.bin, args...)
	cmd.Env = append(os.Environ(), m.env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("%s, %s: %w", m.name, b.name, err)
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		return result{}, fmt.Errorf("%s, %s: %w", m.name, b.name, err)
	}
	return r, nil
}

// spread is the median of some figures with their least and greatest.
type spread struct {
	median, min, max float64
}

func spreadOf(xs []float64) spread {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{med, s[0], s[n-1]}
}

// millions formats a spread of rates in millions.
func (s spread) millions() string {
	return fmt.Sprintf("%.2fM (%.2f-%.2f)", s.median/1e6, s.min/1e6, s.max/1e6)
}

func (s spread) ratio() string {
	return fmt.Sprintf("%.2fx (%.2f-%.2f)", s.median, s.min, s.max)
}

// printTable prints each measurement's figures by build: events/s and
// events per CPU-second as their median over the rounds with their
// least and greatest, the peaks as their greatest; with two builds, the
// ratio of the second's figure to the first's in each round (the two
// measured one after the other), its median over the rounds with the
// least and greatest.
func printTable(res [][][]result, builds []build, rounds int) {
	rate := func(r result) float64 { return float64(r.Events) / r.Seconds }
	perCPU := func(r result) float64 { return float64(r.Events) / r.CPU }
	of := func(rs []result, f func(result) float64) spread {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		return spreadOf(xs)
	}
	fmt.Printf("%-33s %-13s %9s %24s %24s %9s %10s\n", "", "", "events", "events/s", "events/CPU-s", "peak RSS", "peak heap")
	for i, m := range measurements {
		for j, b := range builds {
			rs := res[i][j]
			var rss int64
			var heap uint64
			for _, r := range rs {
				rss, heap = max(rss, r.PeakRSS), max(heap, r.PeakHeap)
			}
			name := ""
			if j == 0 {
				name = m.name
			}
			fmt.Printf("%-33s %-13s %9d %24s %24s %7.0fMB %8.0fMB\n", name, b.name, rs[0].Events,
				of(rs, rate).millions(), of(rs, perCPU).millions(), float64(rss)/1e6, float64(heap)/1e6)
		}
		if len(builds) == 2 {
			ratio := func(f func(result) float64) string {
				a, b := res[i][0], res[i][1]
				pairs := make([]float64, len(a))
				for k := range a {
					pairs[k] = f(b[k]) / f(a[k])
				}
				return spreadOf(pairs).ratio()
			}
			fmt.Printf("%-33s %-13s %9s %24s %24s\n", "", builds[1].name+"/"+builds[0].name, "", ratio(rate), ratio(perCPU))
		}
	}
	fmt.Printf("\n(%d rounds; a figure is the median of the rounds, (min-max) their spread; a ratio is the median of the rounds' ratios, each of two measurements taken one after the other.\n"+
		" GOMAXPROCS %d on %d CPUs; CPU s is user+system time of the measurement's own process, a fairer figure on a shared machine;\n"+
		" peak RSS is the process's own high-water mark (VmHWM), the greatest of the rounds, as is peak heap)\n", rounds, runtime.GOMAXPROCS(0), runtime.NumCPU())
}
