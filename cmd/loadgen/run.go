package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/workloads"
)

// Summary is summary.json of `loadgen run`.
type Summary struct {
	Workload     string    `json:"workload"`
	WorkloadFile string    `json:"workload_file"`
	Seed         int64     `json:"seed"`
	Topic        string    `json:"topic"`
	Client       string    `json:"client"`
	Partitions   int       `json:"partitions"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	ElapsedS     float64   `json:"elapsed_s"`
	Sent         int64     `json:"sent"`
	Acked        int64     `json:"acked"`
	Errors       int64     `json:"errors"`
	Ambiguous    int64     `json:"ambiguous"`
	Unreported   int64     `json:"unreported"`
	// RecordsPerS is acknowledged records per second, from the first send
	// to the last delivery report.
	RecordsPerS float64 `json:"records_per_s"`
	// ValueMBPerS is MiB (2^20 bytes) of record values per second, as
	// Kafka's ProducerPerformance counts "MB/sec".
	ValueMBPerS  float64                `json:"value_mb_per_s"`
	ValueSize    int                    `json:"value_size"`
	PerPartition []int64                `json:"per_partition"`
	Latency      loadgen.LatencySummary `json:"latency"`
	Complete     bool                   `json:"complete"`
	Reason       string                 `json:"partial_reason,omitempty"`
	Cluster      *cluster.Info          `json:"cluster,omitempty"`
}

func runCommand(args []string) error { return runLoad(args, os.Stdout, os.Stderr) }

func runLoad(args []string, stdout, stderr io.Writer) error {
	f, s, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	dir, err := makeOutDir(f.out, s)
	if err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	start := time.Now()
	sum, runErr := produce(ctx, f, s, dir, stderr)
	if sum == nil {
		// The run failed before the producer ran (the cluster, the
		// topic): the folder records why, as a failed chaos run's
		// run.json does, instead of lying empty.
		sum = &Summary{Workload: s.Name, WorkloadFile: s.File, Seed: s.Seed, Topic: f.topic, Client: s.Producer.Client,
			Partitions: s.Topic.Partitions, Start: start, End: time.Now(), ValueSize: s.Value.Size, Reason: runErr.Error()}
	}
	if err := runfolder.WriteJSON(filepath.Join(dir, "summary.json"), sum); err != nil {
		return errors.Join(runErr, err)
	}
	printSummary(stdout, *sum, dir)
	return runErr
}

// produce runs the producer into dir: it opens the cluster, creates the
// topic and produces. The summary is nil when it failed before producing.
func produce(ctx context.Context, f *runFlags, s *workloads.Spec, dir string, stderr io.Writer) (*Summary, error) {
	c, err := cluster.Open(ctx, f.cluster.Options(filepath.Join(dir, "logs"), s.BrokerSettings()))
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background())
	if err := createTopic(ctx, c, f.topic, s); err != nil {
		return nil, err
	}

	hist, err := history.Create(filepath.Join(dir, "history"), "producer-0", 0)
	if err != nil {
		return nil, err
	}
	defer hist.Close()
	hlog, err := os.OpenFile(filepath.Join(dir, "producer.hlog"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	defer hlog.Close()
	clientLog, err := os.OpenFile(filepath.Join(dir, "logs", "producer.log"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	defer clientLog.Close()

	cfg := loadgen.Config{
		Spec: s, Topic: f.topic, Bootstrap: c.Bootstrap(), Props: c.Props(),
		History: hist, LatencyLog: hlog, Log: clientLog,
	}
	if !f.quiet {
		cfg.OnProgress = func(p loadgen.Progress) {
			fmt.Fprintf(stderr, "%6.0fs  %8.0f records/s  acked %9d  errors %d  p99 %s\n",
				p.Elapsed.Seconds(), p.Rate, p.Acked, p.Errors, fmtDuration(p.P99))
		}
	}
	p, err := loadgen.New(cfg)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "loadgen: %s to %s (%d partitions, %s partitioner, %s client) at %s; results in %s\n",
		s.Name, f.topic, s.Topic.Partitions, s.Producer.Partitioner, s.Producer.Client, c.Bootstrap(), dir)
	if f.cpuProfile != "" {
		stopProfile, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return nil, err
		}
		defer stopProfile()
	}
	res, runErr := p.Run(ctx)
	if res == nil {
		return nil, runErr
	}
	sum := summarize(ctx, s, res, runErr)
	if info, err := c.Info(context.Background()); err == nil {
		sum.Cluster = &info
	}
	return &sum, runErr
}

// runFlags are the flags of `loadgen run` that parseRun does not apply to
// the workload.
type runFlags struct {
	cluster    cluster.Flags
	out        string
	topic      string
	quiet      bool
	cpuProfile string
}

// parseRun parses the command line of `loadgen run`: the workload, with
// the command line's overrides applied, and the remaining flags, checked.
func parseRun(args []string, stderr io.Writer) (*runFlags, *workloads.Spec, error) {
	fs := cli.NewFlagSet("loadgen run", stderr)
	f := &runFlags{}
	f.cluster.Register(fs)
	fs.StringVar(&f.out, "out", "", "folder for the history, latency log and summary (default results/<UTC time>-<workload>-loadgen); created, never reused")
	fs.StringVar(&f.topic, "topic", "", "topic to produce to (default the workload's topic.name); created if missing")
	duration := fs.Duration("duration", 0, "override the workload's duration (drops records)")
	records := fs.Int64("records", 0, "override the workload's record count (drops duration)")
	rate := fs.String("rate", "", `override the producer's rate: records/s, 0 or "unlimited" (drops ramp and steps)`)
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loadgen run [flags] WORKLOAD\n\nProduces the workload's traffic (topic, keys, value, producer sections) to a Kafka cluster: an\nexisting one (--bootstrap, -X), or a local one started for the run. Every delivery report becomes\na `produced` event in OUT/history/producer-0.0.jsonl; latencies go to OUT/producer.hlog.")
		fs.PrintDefaults()
	}
	s, err := cli.ParseWorkload(fs, args)
	if err != nil {
		return nil, nil, err
	}
	// The chaos schedule is the chaos driver's: a producer run alone
	// leaves it out.
	if n := len(s.Chaos.Steps); n > 0 {
		fmt.Fprintf(stderr, "note: the workload's chaos schedule (%d steps) is not run by loadgen run\n", n)
	}
	ov := workloads.Overrides{ProducerOnly: true}
	if cli.Given(fs, "duration") {
		ov.Duration = duration
	}
	if cli.Given(fs, "records") {
		ov.Records = records
	}
	if cli.Given(fs, "rate") {
		r := 0.0
		if *rate != "unlimited" {
			if r, err = strconv.ParseFloat(*rate, 64); err != nil {
				return nil, nil, cli.Usagef(`--rate %s: expected records/s >= 0, or "unlimited"`, clip.Quote(*rate))
			}
		}
		ov.Rate = &r
	}
	if err := s.Override(ov); err != nil {
		return nil, nil, cli.Usage(err)
	}
	for _, w := range s.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	brokersSet := false
	fs.Visit(func(fl *flag.Flag) { brokersSet = brokersSet || fl.Name == "brokers" })
	if !brokersSet {
		f.cluster.Brokers = s.Broker.Brokers
	}
	if f.topic == "" {
		f.topic = s.Topic.Name
	}
	if f.cpuProfile != "" {
		if _, err := os.Lstat(f.cpuProfile); err == nil {
			return nil, nil, cli.Usagef("--cpuprofile %s: exists (a file is never overwritten: choose another name)", clip.Quote(f.cpuProfile))
		}
	}
	if err := f.cluster.Check(); err != nil {
		return nil, nil, cli.Usage(err)
	}
	if err := loadgen.CheckClient(s, f.cluster.Props.Props); err != nil {
		return nil, nil, cli.Usage(err)
	}
	return f, s, nil
}

// makeOutDir creates the results folder of the run (out, or a new one
// under results/) with its history and logs folders and a copy of the
// workload file.
func makeOutDir(out string, s *workloads.Spec) (string, error) {
	dir := out
	if dir == "" {
		var err error
		if dir, err = runfolder.NewRunDir("results", s.Name+"-loadgen", time.Now()); err != nil {
			return "", err
		}
	} else if err := newDir(dir); err != nil {
		return "", cli.Usage(err)
	}
	for _, sub := range []string{"history", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return "", err
		}
	}
	if src, err := os.ReadFile(s.File); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "workload.yaml"), src, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// createTopic creates the topic with the workload's partitions and
// replication (an existing one must have as many partitions) and waits for
// its leaders.
func createTopic(ctx context.Context, c cluster.Cluster, topic string, s *workloads.Spec) error {
	adm, err := cluster.NewAdmin(c.Bootstrap(), c.Props())
	if err != nil {
		return err
	}
	defer adm.Close()
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return cluster.CreateTopic(tctx, adm, topic, int32(s.Topic.Partitions), int16(s.Topic.Replication), nil)
}

// startCPUProfile profiles the process's CPU into path, a new file, until
// stop.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// summarize is summary.json of a finished run; ctx is the run's, whose
// cause is the reason of an interrupted one.
func summarize(ctx context.Context, s *workloads.Spec, res *loadgen.Result, runErr error) Summary {
	sum := Summary{
		Workload: s.Name, WorkloadFile: s.File, Seed: s.Seed, Topic: res.Topic, Client: res.Client,
		Partitions: len(res.PerPartition), Start: res.Start, End: res.End, ElapsedS: res.Elapsed().Seconds(),
		Sent: res.Sent, Acked: res.Acked, Errors: res.Errors, Ambiguous: res.Ambiguous, Unreported: res.Unreported,
		RecordsPerS: res.Rate(), ValueMBPerS: res.Rate() * float64(res.ValueSize) / (1 << 20), ValueSize: res.ValueSize,
		PerPartition: res.PerPartition, Latency: res.Latency, Complete: !res.Interrupted && runErr == nil,
	}
	switch {
	case res.Interrupted:
		sum.Reason = context.Cause(ctx).Error()
	case runErr != nil:
		sum.Reason = runErr.Error()
	}
	return sum
}

// newDir creates dir, which must not exist or be empty: results are never
// overwritten.
func newDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return fmt.Errorf("--out %s: not empty; results are never overwritten, choose another folder", dir)
	}
	return os.MkdirAll(dir, 0o755)
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0fus", float64(d)/1e3)
}

func ms(v float64) string { return fmtDuration(time.Duration(v * 1e6)) }

func printSummary(w io.Writer, s Summary, dir string) {
	state := "complete"
	if !s.Complete {
		state = "PARTIAL: " + s.Reason
	}
	fmt.Fprintf(w, "workload %s: topic %s, %d partitions, %s client (%s)\n", s.Workload, s.Topic, s.Partitions, s.Client, state)
	fmt.Fprintf(w, "sent %d, acked %d, errors %d (%d ambiguous) in %.2fs: %.0f records/s, %.2f MB/s of values\n",
		s.Sent, s.Acked, s.Errors, s.Ambiguous, s.ElapsedS, s.RecordsPerS, s.ValueMBPerS)
	for _, l := range []struct {
		what string
		p    loadgen.Percentiles
	}{{"from intended send", s.Latency.Intended}, {"from send", s.Latency.Sent}} {
		fmt.Fprintf(w, "latency %-18s p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", l.what+":",
			ms(l.p.P50), ms(l.p.P90), ms(l.p.P99), ms(l.p.P999), ms(l.p.Max))
	}
	if len(s.PerPartition) > 0 && s.Acked > 0 {
		lo, hi := slices.Min(s.PerPartition), slices.Max(s.PerPartition)
		mean := float64(s.Acked) / float64(len(s.PerPartition))
		fmt.Fprintf(w, "records per partition: min %d, max %d (max/mean %.2f)\n", lo, hi, float64(hi)/mean)
	}
	fmt.Fprintf(w, "results: %s\n", dir)
}
