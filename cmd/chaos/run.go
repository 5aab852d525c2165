package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/runner"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

func init() {
	register("run", "run a workload's cells (strategy x commit policy x client) under its chaos plan", runRun)
}

const runUsage = `usage: chaos run [flags] WORKLOAD

Runs every cell of the workload (strategy x commit policy x client) against
a Kafka cluster: a fresh topic, the producer, the member processes and the
seeded chaos plan per cell, then a drain. Results go to
results/<UTC time>-<workload>/<cell>/ and are never overwritten.

Flags:
`

func runRun(args []string) error {
	fs := cli.NewFlagSet("chaos run", os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), runUsage)
		fs.PrintDefaults()
	}
	_, err := runWorkload(fs, args, nil)
	return err
}

// runWorkload adds run's flags to fs (which may hold a caller's own),
// parses args, calls check (if not nil) to validate the caller's flags, and
// runs the workload; it returns the results folder (empty when nothing was
// started).
func runWorkload(fs *flag.FlagSet, args []string, check func() error) (string, error) {
	var cf cluster.Flags
	cf.Register(fs)
	strategies := fs.String("strategies", "", "comma-separated strategies to run, of "+strings.Join(vocab.StrategyNames(), ", ")+" (default: the workload's)")
	policies := fs.String("commit-policies", "", "comma-separated commit policies to run, of "+strings.Join(vocab.PolicyNames(), ", ")+" (default: the workload's)")
	clients := fs.String("clients", "", "comma-separated clients to run each strategy on (those that implement it), of "+strings.Join(vocab.ClientNames(), ", ")+" (default: the workload's)")
	repeat := fs.Int("repeat", 1, "run every cell this many times (samples for `chaos compare`)")
	resultsDir := fs.String("results", "results", "results root folder")
	dryRun := fs.Bool("dry-run", false, "print the cells and the chaos plan, start nothing")
	var ov workloads.Overrides
	fs.DurationVar(&ov.Duration, "duration", 0, "override the workload's traffic duration")
	fs.Int64Var(&ov.Records, "records", 0, "override the workload's record count")
	if err := cli.Parse(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return "", cli.Usagef("expected one workload file, got %d arguments", fs.NArg())
	}
	if *repeat < 1 {
		return "", cli.Usagef("--repeat %d: expected >= 1", *repeat)
	}
	if err := cf.Check(); err != nil {
		return "", cli.Usage(err)
	}
	if check != nil {
		if err := check(); err != nil {
			return "", cli.Usage(err)
		}
	}
	spec, err := workloads.Load(fs.Arg(0))
	if err != nil {
		return "", cli.Usage(err)
	}
	if err := spec.Override(ov); err != nil {
		return "", cli.Usage(err)
	}
	if err := overrideClients(spec, *clients); err != nil {
		return "", cli.Usage(err)
	}
	cells, err := selectCells(spec, *strategies, *policies, "")
	if err != nil {
		return "", cli.Usage(err)
	}
	// What a member would refuse at start, refused before the run starts.
	props := kafkaconf.Props{}
	for k, v := range cf.Props.Props {
		props[k] = v
	}
	for k, v := range spec.Consumer.Properties {
		props[k] = v
	}
	for _, c := range cells {
		if err := member.CheckClient(c.Client, c.Strategy, spec.Consumer.StaticMembership, props); err != nil {
			return "", cli.Usagef("%s: cell %s (consumer.static_membership, consumer.properties, -X): %v", spec.File, c.Name, err)
		}
	}
	for _, w := range spec.Warnings {
		fmt.Fprintf(os.Stderr, "warning: %s\n", w)
	}
	opts := runner.Options{Spec: spec, Cells: cells, Repeat: *repeat, ResultsDir: *resultsDir,
		Cluster: cf.Options("", nil), Out: os.Stdout, Command: os.Args}
	plan := runner.NewPlan(&opts)
	plan.Print(os.Stdout)
	if *dryRun {
		return "", nil
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	res, err := runner.Run(ctx, opts)
	fmt.Println()
	if res.Dir != "" {
		state := "complete"
		if !res.Complete {
			state = "PARTIAL"
		}
		fmt.Printf("results (%s): %s\n", state, res.Dir)
	}
	if errors.Is(err, cluster.ErrNoProvider) {
		return res.Dir, cli.Usage(err)
	}
	return res.Dir, err
}

// selectCells narrows the workload's cells to the given strategies,
// policies and clients; a name the workload does not run is an error.
func selectCells(spec *workloads.Spec, strategies, policies, clients string) ([]workloads.Cell, error) {
	all := spec.Cells()
	filter := func(flag, list string, get func(workloads.Cell) string) error {
		if list == "" {
			return nil
		}
		want := map[string]bool{}
		for _, s := range strings.Split(list, ",") {
			s = strings.TrimSpace(s)
			found := false
			for _, c := range all {
				found = found || get(c) == s
			}
			if !found {
				return fmt.Errorf("--%s %s: %s is not in the workload %s (its cells: %s)", flag, list, s, spec.File, cellNames(all))
			}
			want[s] = true
		}
		var kept []workloads.Cell
		for _, c := range all {
			if want[get(c)] {
				kept = append(kept, c)
			}
		}
		all = kept
		return nil
	}
	if err := filter("strategies", strategies, func(c workloads.Cell) string { return c.Strategy }); err != nil {
		return nil, err
	}
	if err := filter("commit-policies", policies, func(c workloads.Cell) string { return c.CommitPolicy }); err != nil {
		return nil, err
	}
	if err := filter("clients", clients, func(c workloads.Cell) string { return c.Client }); err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no cell of %s matches the selection", spec.File)
	}
	return all, nil
}

func cellNames(cells []workloads.Cell) string {
	var names []string
	for _, c := range cells {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}
