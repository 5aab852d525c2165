package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/partitioner"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

func planCommand(args []string) error { return plan(args, os.Stdout, os.Stderr) }

// planReport is `loadgen plan --json`.
type planReport struct {
	Workload     string            `json:"workload"`
	File         string            `json:"file"`
	Keys         int               `json:"keys"`
	Distribution string            `json:"distribution"`
	Records      float64           `json:"records,omitempty"` // expected records of a cell, when the rate is limited
	Load         loadgen.Load      `json:"load"`
	Changes      []partitionChange `json:"partition_changes"`
	Loads        []loadgen.Load    `json:"loads_by_partitioner"`
}

type partitionChange struct {
	From      int32              `json:"from"`
	To        int32              `json:"to"`
	Why       string             `json:"why"`
	Movements []loadgen.Movement `json:"movements"`
}

func plan(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("loadgen plan", stderr)
	to := fs.Int("to", 0, "a partition count to compare key movement to (default: the workload's add_partitions steps, else twice the partitions)")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loadgen plan [--to N] [--json] WORKLOAD\n\nPredicts, from the workload's key distribution, the share of traffic of every partition under its\npartitioner, and for a partition count change P to P' the fraction of keys (and of traffic) that\nmove under each partitioner.")
		fs.PrintDefaults()
	}
	s, err := cli.ParseWorkload(fs, args)
	if err != nil {
		return err
	}
	ks, dist, err := s.Keyspace()
	if err != nil {
		return cli.Usage(err)
	}
	part, _ := s.Partitioner()
	p0 := int32(s.Topic.Partitions)
	rep := planReport{Workload: s.Name, File: s.File, Keys: ks.Len(), Distribution: dist.String()}
	rep.Load = loadgen.PredictLoad(ks, dist, part, p0)
	if sched, err := s.RateSchedule(); err == nil && s.Duration > 0 {
		if n, ok := sched.Records(s.Duration); ok {
			rep.Records = n
		}
	} else if s.Records > 0 {
		rep.Records = float64(s.Records)
	}
	for _, name := range partitioner.Names() {
		q, _ := partitioner.New(name)
		rep.Loads = append(rep.Loads, loadgen.PredictLoad(ks, dist, q, p0))
	}
	// The partition count changes to compare.
	cur := p0
	for _, st := range s.ChaosPlan() {
		if st.Action == vocab.ActionAddPartitions {
			rep.Changes = append(rep.Changes, partitionChange{From: cur, To: int32(st.Partitions), Why: fmt.Sprintf("chaos step %d at %v", st.Step, st.At)})
			cur = int32(st.Partitions)
		}
	}
	if *to < 0 || *to > workloads.MaxPartitions {
		return cli.Usagef("--to %d: expected a partition count, at most %d", *to, workloads.MaxPartitions)
	}
	if *to > 0 {
		if int32(*to) <= p0 {
			return cli.Usagef("--to %d: expected more than the workload's %d partitions (Kafka only adds partitions)", *to, p0)
		}
		rep.Changes = []partitionChange{{From: p0, To: int32(*to), Why: "--to"}}
	}
	if len(rep.Changes) == 0 {
		rep.Changes = []partitionChange{{From: p0, To: 2 * p0, Why: "no add_partitions step, so doubling; --to N for another count"}}
	}
	for i, ch := range rep.Changes {
		for _, name := range partitioner.Names() {
			q, _ := partitioner.New(name)
			rep.Changes[i].Movements = append(rep.Changes[i].Movements, loadgen.PredictMovement(ks, dist, q, ch.From, ch.To))
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printPlan(stdout, s, rep)
	return nil
}

func printPlan(w io.Writer, s *workloads.Spec, rep planReport) {
	l := rep.Load
	fmt.Fprintf(w, "workload %s (%s): %d keys, %s\n", rep.Workload, rep.File, rep.Keys, rep.Distribution)
	fmt.Fprintf(w, "partitioner %s, %d partitions", l.Partitioner, l.Partitions)
	if rep.Records > 0 {
		fmt.Fprintf(w, ", about %.0f records per cell", rep.Records)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "predicted share of traffic per partition:")
	fmt.Fprintf(w, "%9s %7s %7s", "partition", "share", "keys")
	if rep.Records > 0 {
		fmt.Fprintf(w, " %9s", "records")
	}
	fmt.Fprintln(w)
	_, hot := l.Hottest()
	for i, sh := range l.Share {
		fmt.Fprintf(w, "%9d %6.2f%% %7d", i, 100*sh, l.Keys[i])
		if rep.Records > 0 {
			fmt.Fprintf(w, " %9.0f", sh*rep.Records)
		}
		bar := 0
		if hot > 0 {
			bar = int(math.Round(40 * sh / hot))
		}
		fmt.Fprintf(w, "  %s\n", strings.Repeat("#", bar))
	}
	hp, hs := l.Hottest()
	fmt.Fprintf(w, "skew: hottest partition %d carries %.2f%% (mean %.2f%%): max/mean %.2f, coefficient of variation %.2f\n",
		hp, 100*hs, 100/float64(l.Partitions), l.MaxOverMean(), l.CV())
	fmt.Fprintln(w)
	fmt.Fprintf(w, "the same keys under each partitioner, %d partitions:\n", l.Partitions)
	fmt.Fprintf(w, "%-12s %9s %8s %6s\n", "partitioner", "hottest", "max/mean", "cv")
	for _, x := range rep.Loads {
		p, sh := x.Hottest()
		fmt.Fprintf(w, "%-12s %3d %5.2f%% %8.2f %6.2f\n", x.Partitioner, p, 100*sh, x.MaxOverMean(), x.CV())
	}
	for _, ch := range rep.Changes {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "partitions %d -> %d (%s): keys that move to another partition\n", ch.From, ch.To, ch.Why)
		fmt.Fprintf(w, "%-12s %11s %14s\n", "partitioner", "keys moved", "traffic moved")
		for _, m := range ch.Movements {
			mark := ""
			if m.Partitioner == s.Producer.Partitioner {
				mark = "  <- the workload's"
			}
			fmt.Fprintf(w, "%-12s %10.2f%% %13.2f%%%s\n", m.Partitioner, 100*m.Keys, 100*m.Traffic, mark)
		}
	}
}
