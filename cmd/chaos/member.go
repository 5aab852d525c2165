package main

import (
	"context"
	"os"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/member"
)

func init() {
	register("member", "run one consumer-group member process (the chaos driver starts these)", runMember)
}

func runMember(args []string) error {
	fs := cli.NewFlagSet("chaos member", os.Stderr)
	var c member.Config
	var props kafkaconf.Flag
	fs.StringVar(&c.Name, "name", "", "member name, the proc of its history (m1, m2, ...)")
	fs.IntVar(&c.Inc, "inc", 0, "incarnation: 0, then +1 per restart")
	fs.StringVar(&c.HistoryDir, "history-dir", "", "folder for the history file <name>.<inc>.jsonl")
	fs.StringVar(&c.Bootstrap, "bootstrap", "", "bootstrap.servers")
	fs.Var(&props, "X", "client property key=value, repeatable (Kafka names)")
	fs.StringVar(&c.Group, "group", "", "group.id")
	fs.StringVar(&c.Topic, "topic", "", "topic to consume")
	fs.StringVar(&c.Strategy, "strategy", "", "range, roundrobin, sticky, cooperative-sticky, consumer-uniform or consumer-range")
	fs.StringVar(&c.Client, "client", "", "confluent or franz (default: franz for sticky, confluent otherwise)")
	fs.StringVar(&c.Policy, "policy", member.PolicySyncBatch, "commit policy: auto, auto-after-process, sync-batch, async-batch, async-sync-on-revoke, commit-before-process")
	fs.DurationVar(&c.Processing.Cost, "processing-cost", 0, "processing cost per record (mean for exponential)")
	fs.StringVar(&c.Processing.Distribution, "processing-distribution", "fixed", "fixed, uniform or exponential")
	fs.DurationVar(&c.Processing.Jitter, "processing-jitter", 0, "uniform distribution: cost +- jitter")
	fs.Int64Var(&c.Seed, "seed", 1, "seed of the processing-cost generator")
	fs.IntVar(&c.MaxPollRecords, "max-poll-records", 500, "records per processing batch (max.poll.records)")
	fs.DurationVar(&c.SessionTimeout, "session-timeout", 0, "session.timeout.ms, classic protocol (default 45s)")
	fs.DurationVar(&c.HeartbeatInterval, "heartbeat-interval", 0, "heartbeat.interval.ms, classic protocol (default 3s)")
	fs.DurationVar(&c.MaxPollInterval, "max-poll-interval", 0, "max.poll.interval.ms (default 300s)")
	fs.DurationVar(&c.AutoCommitInterval, "auto-commit-interval", 0, "auto.commit.interval.ms (default 5s)")
	fs.BoolVar(&c.Static, "static", false, "static membership: group.instance.id = name")
	control := fs.Bool("control-stdin", false, "read driver commands (slow <duration>) from standard input")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %v", fs.Args())
	}
	c.Props = props.Props
	// SIGTERM (and Ctrl-C) is a graceful close; SIGKILL is a crash.
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	var in *os.File
	if *control {
		in = os.Stdin
	}
	err := member.Run(ctx, c, in, os.Stderr)
	if member.IsConfigError(err) {
		return cli.Usage(err) // exit 2: nothing was started
	}
	return err
}
