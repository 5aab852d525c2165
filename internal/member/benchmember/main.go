// Command benchmember measures what chaosbench itself costs a consumer:
// a member (`chaos member`, zero processing cost) against a bare consumer
// of the same client with the same settings (member.RunBare: no history,
// no stamp read, no bookkeeping), draining the same preloaded topic on
// one local broker, in alternating rounds. It prints records/s and records
// per CPU-second of each, their medians and spread, and the ratio. It
// backs `make bench-member`.
//
// A capacity figure measured by chaosbench describes Kafka and the client
// only if the harness's own cost is small beside it: the history event a
// member writes and flushes for every record, the stamp it reads, the
// offsets it tracks. This benchmark bounds that cost where it is largest,
// at zero processing cost; any real processing cost dilutes it.
//
// Both sides are child processes started the same way; each is stopped
// (SIGTERM: final commit, leave the group) once its group's committed
// offsets reach the end of the topic. Throughput is records over the time
// from the first record taken to the last, on the consumer's own clock
// (the member's from its history, the bare consumer's from its report),
// so that neither the group join nor the stop counts; CPU is the process's
// user and system time over its whole life (rusage). Once its group has
// committed the whole topic, each side is left idle for -idle before it is
// stopped: its CPU over that window (from /proc) is what it costs a host
// when there is nothing to consume, as most members of a large group are
// most of the time.
//
// The java client's member is a JVM: -jvm NAME=OPTIONS measures it (and
// its bare consumer, chaosbench.member.Bare) once more with OPTIONS after
// the JVM's own (member.JavaOptionsEnv, as a run takes them), so that JVM
// settings (compilation, collector, heap) are compared side by side in
// one run, each as "java/NAME".
//
//	benchmember [flags]          run the benchmark
//	benchmember bare FLAGS...    the bare consumer, with a member's flags (started by the benchmark)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/probe"
	"github.com/chaosbench/chaosbench/internal/stat"
	"github.com/chaosbench/chaosbench/workloads"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bare" {
		cli.Exit("benchmember bare", bare(os.Args[2:]))
	}
	o := options{}
	flag.IntVar(&o.records, "records", 300_000, "records preloaded into the topic, drained by every run")
	flag.IntVar(&o.rounds, "rounds", 5, "measured runs of each side, alternating (after one warm-up run each)")
	flag.IntVar(&o.partitions, "partitions", 6, "partitions of the topic")
	flag.IntVar(&o.valueSize, "value-size", 100, "value size, bytes")
	flag.StringVar(&o.clients, "clients", "confluent,franz", "clients to measure, comma-separated: confluent, franz, java")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "how long each side stays idle after draining the topic, its CPU measured")
	flag.Var(&o.jvms, "jvm", "NAME=OPTIONS: measure the java client also with these JVM options after its own (as CHAOSBENCH_JAVA_OPTIONS gives them to a run), as java/NAME; repeatable")
	flag.StringVar(&o.strategy, "strategy", "range", "partition assignment strategy of both sides")
	flag.StringVar(&o.policy, "policy", "sync-batch", "commit policy of both sides: sync-batch, async-batch or auto")
	flag.IntVar(&o.maxPoll, "max-poll-records", 500, "max.poll.records of both sides")
	flag.StringVar(&o.chaos, "chaos", "bin/chaos", "the chaos binary (make build)")
	flag.BoolVar(&o.keep, "keep", false, "keep the working folder (histories, logs)")
	flag.Parse()
	if err := cli.CheckRanges(
		cli.IntRange{Flag: "records", Value: o.records, Min: 1, Max: 1_000_000_000},
		cli.IntRange{Flag: "rounds", Value: o.rounds, Min: 1, Max: 100},
		cli.IntRange{Flag: "partitions", Value: o.partitions, Min: 1, Max: workloads.MaxPartitions},
		cli.IntRange{Flag: "value-size", Value: o.valueSize, Min: 1, Max: workloads.MaxValueSize},
		cli.IntRange{Flag: "max-poll-records", Value: o.maxPoll, Min: 1, Max: 1_000_000},
	); err != nil {
		fmt.Fprintln(os.Stderr, "bench-member:", err)
		os.Exit(2)
	}
	for _, c := range strings.Split(o.clients, ",") {
		if c != "confluent" && c != "franz" && c != "java" {
			fmt.Fprintf(os.Stderr, "bench-member: --clients: %q: expected confluent, franz or java\n", c)
			os.Exit(2)
		}
	}
	if o.idle < 0 || o.idle > 10*time.Minute {
		fmt.Fprintf(os.Stderr, "bench-member: --idle %s: expected 0 to 10m\n", o.idle)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-member:", err)
		os.Exit(1)
	}
}

type options struct {
	records, rounds, partitions, valueSize, maxPoll int
	clients, strategy, policy, chaos                string
	idle                                            time.Duration
	jvms                                            jvmFlag
	keep                                            bool
}

// A subject is what one column of the benchmark measures: a client, and
// for java the JVM options added to the member's (none by default).
type subject struct {
	label, client, jvmOptions string
}

// jvmFlag collects -jvm NAME=OPTIONS.
type jvmFlag []subject

func (f *jvmFlag) String() string { return fmt.Sprint(*f) }

func (f *jvmFlag) Set(v string) error {
	name, opts, ok := strings.Cut(v, "=")
	if !ok || name == "" || strings.ContainsAny(name, "/ ") || strings.TrimSpace(opts) == "" {
		return fmt.Errorf("%q: expected NAME=OPTIONS, e.g. c1=-XX:TieredStopAtLevel=1", v)
	}
	for _, s := range *f {
		if s.label == "java/"+name {
			return fmt.Errorf("%q: %s is named twice", v, name)
		}
	}
	*f = append(*f, subject{label: "java/" + name, client: "java", jvmOptions: opts})
	return nil
}

// subjects lists what the run measures, in the order of --clients, each
// java variant after the plain java client.
func (o options) subjects() []subject {
	var ss []subject
	for _, c := range strings.Split(o.clients, ",") {
		ss = append(ss, subject{label: c, client: c})
		if c == "java" {
			ss = append(ss, o.jvms...)
		}
	}
	return ss
}

// bare runs the bare consumer with a member's flags and prints its result
// as JSON on standard output when SIGTERM stops it.
func bare(args []string) error {
	cfg, err := member.ParseArgs(args)
	if err != nil {
		return cli.Usage(err)
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	res, err := member.RunBare(ctx, cfg)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// measurement is one side's drain of the topic.
type measurement struct {
	side, label string
	round       int
	records     int64
	elapsed     time.Duration // first record to last
	cpu         time.Duration // user + system, whole process
	idleCores   float64       // CPU over the idle window, in cores
}

func (m measurement) rate() float64        { return float64(m.records) / m.elapsed.Seconds() }
func (m measurement) perCPUSec() float64   { return float64(m.records) / m.cpu.Seconds() }
func (m measurement) idlePercent() float64 { return 100 * m.idleCores }

// sides are the programs that run each side: the chaos binary (members),
// this program (the Go clients' bare consumers) and the built Java member
// (its bare consumer).
type sides struct {
	chaos, self string
	java        member.JavaMember
}

// command returns the command of one side of subj with the member flags args.
func (c sides) command(side string, subj subject, args []string) *exec.Cmd {
	var cmd *exec.Cmd
	switch {
	case side == "member":
		cmd = exec.Command(c.chaos, append([]string{"member"}, args...)...)
	case subj.client == "java":
		argv := c.java.Command(append([]string{"--bare"}, args...)...)
		cmd = exec.Command(argv[0], argv[1:]...)
	default:
		cmd = exec.Command(c.self, append([]string{"bare"}, args...)...)
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	if subj.jvmOptions != "" {
		cmd.Env = append(cmd.Env, member.JavaOptionsEnv+"="+subj.jvmOptions)
	}
	return cmd
}

func run(o options) error {
	chaos, err := filepath.Abs(o.chaos)
	if err != nil {
		return err
	}
	if _, err := os.Stat(chaos); err != nil {
		return fmt.Errorf("%w (make build)", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	subjects := o.subjects()
	var java member.JavaMember
	if slices.ContainsFunc(subjects, func(s subject) bool { return s.client == "java" }) {
		if java, err = member.BuildJava(context.Background(), os.Stdout); err != nil {
			return err
		}
	}
	work, err := os.MkdirTemp("", "chaosbench-bench-member-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Printf("working folder: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	ctx := context.Background()
	fmt.Println("starting a local Kafka broker...")
	c, err := cluster.StartLocal(ctx, cluster.LocalConfig{Dir: filepath.Join(work, "kafka"), HeapMB: 1024,
		Settings: cluster.Settings{"group.initial.rebalance.delay.ms": "0"}})
	if err != nil {
		return err
	}
	defer func() {
		if err := c.Close(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "stop broker:", err)
		}
	}()
	adm, err := cluster.NewAdmin(c.Bootstrap(), nil)
	if err != nil {
		return err
	}
	defer adm.Close()
	const topic = "bench-member"
	if err := preload(ctx, adm, c.Bootstrap(), topic, work, o); err != nil {
		return fmt.Errorf("preload: %w", err)
	}
	fmt.Printf("%d records of %d bytes preloaded into %d partitions; strategy %s, policy %s, max.poll.records %d, processing cost 0\n",
		o.records, o.valueSize, o.partitions, o.strategy, o.policy, o.maxPoll)
	fmt.Printf("%d measured rounds after one warm-up, member and bare consumer alternating (the first side alternates too)\n\n", o.rounds)

	sides := sides{chaos: chaos, self: self, java: java}
	ms, err := measure(ctx, adm, sides, c.Bootstrap(), topic, work, subjects, o)
	if err != nil {
		return err
	}
	summarize(ms, subjects, o.rounds)
	return nil
}

// measure drains the topic with each side of each client, one warm-up
// round and then o.rounds measured ones, the first side alternating from
// round to round, and returns the measured drains.
func measure(ctx context.Context, adm *kadm.Client, cmds sides, bootstrap, topic, work string, subjects []subject, o options) ([]measurement, error) {
	var ms []measurement
	for round := 0; round <= o.rounds; round++ {
		for _, subj := range subjects {
			sides := []string{"member", "bare"}
			if round%2 == 1 {
				slices.Reverse(sides)
			}
			for _, side := range sides {
				m, err := drain(ctx, adm, cmds, bootstrap, topic, work, side, subj, round, o)
				if err != nil {
					return nil, fmt.Errorf("round %d, %s %s: %w", round, subj.label, side, err)
				}
				what := fmt.Sprintf("round %d", round)
				if round == 0 {
					what = "warm-up"
				} else {
					ms = append(ms, m)
				}
				fmt.Printf("%-8s %-12s %-6s %9.0f records/s  %9.0f records per CPU-second  (%s, CPU %s; idle %.2f%% of a core)\n",
					what, subj.label, side, m.rate(), m.perCPUSec(), m.elapsed.Round(time.Millisecond), m.cpu.Round(time.Millisecond), 100*m.idleCores)
			}
		}
	}
	return ms, nil
}

// summarize prints, per client and metric, each side's spread over the
// rounds and the member's ratio to the bare consumer.
func summarize(ms []measurement, subjects []subject, rounds int) {
	fmt.Printf("\nmedian [min – max] of %d rounds:\n", rounds)
	for _, subj := range subjects {
		pick := func(side string, f func(measurement) float64) []float64 {
			var xs []float64
			for _, m := range ms {
				if m.label == subj.label && m.side == side {
					xs = append(xs, f(m))
				}
			}
			return xs
		}
		for _, metric := range []struct {
			name string
			f    func(measurement) float64
		}{{"records/s", measurement.rate}, {"records per CPU-second", measurement.perCPUSec}, {"idle, % of a core", measurement.idlePercent}} {
			mem, bar := pick("member", metric.f), pick("bare", metric.f)
			// Each round's pair ran back to back: their ratio shows how
			// much of the spread the two sides share (the host's load).
			var ratios []float64
			for i := range min(len(mem), len(bar)) {
				ratios = append(ratios, mem[i]/bar[i])
			}
			if metric.name == "idle, % of a core" {
				// A cost, not a rate: the member's excess over the bare consumer's.
				fmt.Printf("  %-12s %-23s member %s   bare %s   member - bare %+.2f points\n", subj.label, metric.name,
					spreadPrec(mem, 2), spreadPrec(bar, 2), stat.Median(mem)-stat.Median(bar))
				continue
			}
			fmt.Printf("  %-12s %-23s member %s   bare %s   member/bare %.3f (harness cost %.1f%%), per round %s\n", subj.label, metric.name,
				spread(mem), spread(bar), stat.Median(mem)/stat.Median(bar), 100*(1-stat.Median(mem)/stat.Median(bar)), spreadRatio(ratios))
		}
	}
}

// preload creates the topic and fills it with a workload's records (keys
// and stamped values exactly as in a chaos run), as fast as the producer
// goes.
func preload(ctx context.Context, adm *kadm.Client, bootstrap, topic, work string, o options) error {
	if err := cluster.CreateTopic(ctx, adm, topic, int32(o.partitions), 1, nil); err != nil {
		return err
	}
	spec, err := workloads.Parse("bench-member.yaml", fmt.Appendf(nil, `name: bench-member
seed: 1
records: %d
topic: {partitions: %d}
keys: {count: 10000, distribution: uniform}
value: {size: %d}
producer: {client: franz, rate: unlimited}
`, o.records, o.partitions, o.valueSize))
	if err != nil {
		return err
	}
	dir := filepath.Join(work, "producer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hist, err := history.Create(dir, "producer-0", 0)
	if err != nil {
		return err
	}
	defer hist.Close()
	p, err := loadgen.New(loadgen.Config{Spec: spec, Topic: topic, Bootstrap: bootstrap, History: hist})
	if err != nil {
		return err
	}
	res, err := p.Run(ctx)
	if err != nil {
		return err
	}
	if res.Acked != int64(o.records) {
		return fmt.Errorf("acknowledged %d of %d records", res.Acked, o.records)
	}
	return nil
}

// drain runs one side against a fresh group until the group has committed
// the whole topic, then stops it.
func drain(ctx context.Context, adm *kadm.Client, cmds sides, bootstrap, topic, work, side string, subj subject, round int, o options) (measurement, error) {
	m := measurement{side: side, label: subj.label, round: round}
	client := subj.client
	group := fmt.Sprintf("bench-%s-%s-%d", side, strings.ReplaceAll(subj.label, "/", "-"), round)
	dir := filepath.Join(work, group)
	cfg := member.Defaults()
	cfg.Name, cfg.HistoryDir, cfg.Bootstrap, cfg.Group, cfg.Topic = "m1", filepath.Join(dir, "history"), bootstrap, group, topic
	cfg.Client, cfg.Strategy, cfg.Policy, cfg.MaxPollRecords = client, o.strategy, o.policy, o.maxPoll
	cfg.SessionTimeout, cfg.HeartbeatInterval = 10*time.Second, time.Second
	cmd := cmds.command(side, subj, cfg.Args())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return m, err
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return m, err
	}
	defer logf.Close()
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return m, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := waitCommitted(ctx, adm, topic, group, int64(o.records), exited); err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return m, fmt.Errorf("%w; log: %s", err, tailOf(filepath.Join(dir, "log")))
	}
	if o.idle > 0 {
		idle, err := idleCPU(cmd.Process.Pid, o.idle, exited)
		if err != nil {
			return m, fmt.Errorf("idle: %w; log: %s", err, tailOf(filepath.Join(dir, "log")))
		}
		m.idleCores = idle
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := <-exited; err != nil {
		return m, fmt.Errorf("exit: %w; log: %s", err, tailOf(filepath.Join(dir, "log")))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var first, last int64
	if side == "member" {
		m.records, first, last, err = fromHistory(filepath.Join(cfg.HistoryDir, history.FileName("m1", 0)))
		if err != nil {
			return m, err
		}
	} else {
		var r member.BareResult
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			return m, fmt.Errorf("the bare consumer's report %q: %w", stdout.String(), err)
		}
		m.records, first, last = r.Records, r.FirstT, r.LastT
	}
	if m.records != int64(o.records) {
		return m, fmt.Errorf("took %d records, expected %d", m.records, o.records)
	}
	m.elapsed = time.Duration(last - first)
	return m, nil
}

// waitCommitted waits until the group's committed offsets reach the end of
// every partition of the topic (want records in all), or the process
// exits, or ten minutes pass.
func waitCommitted(ctx context.Context, adm *kadm.Client, topic, group string, want int64, exited <-chan error) error {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited before draining the topic: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			continue // the group does not exist yet
		}
		var sum int64
		offs.Each(func(o kadm.OffsetResponse) {
			if o.Topic == topic && o.Err == nil && o.At > 0 {
				sum += o.At
			}
		})
		if sum >= want {
			return nil
		}
	}
	return errors.New("did not drain the topic within 10 minutes")
}

// fromHistory counts a member's processed events and their first and last
// times.
func fromHistory(path string) (n, first, last int64, err error) {
	r, err := history.OpenFile(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err == io.EOF {
			return n, first, last, nil
		}
		if err != nil {
			return n, first, last, err
		}
		if e.Kind != history.Processed {
			continue
		}
		if n == 0 {
			first = e.T
		}
		n++
		last = e.T
	}
}

// idleCPU returns the CPU the process pid used over window, in cores
// (user and system time from /proc/<pid>/stat), or an error if it exits
// meanwhile.
func idleCPU(pid int, window time.Duration, exited <-chan error) (float64, error) {
	before, ok := probe.ProcessCPU(pid)
	if !ok {
		return 0, fmt.Errorf("cannot read the CPU time of process %d", pid)
	}
	start := time.Now()
	select {
	case err := <-exited:
		return 0, fmt.Errorf("exited while idle: %v", err)
	case <-time.After(window):
	}
	after, ok := probe.ProcessCPU(pid)
	if !ok {
		return 0, fmt.Errorf("cannot read the CPU time of process %d", pid)
	}
	return (after - before).Seconds() / time.Since(start).Seconds(), nil
}

func tailOf(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}

func spread(xs []float64) string { return spreadPrec(xs, 0) }

// spreadPrec renders xs as their median [min – max] with prec decimals.
func spreadPrec(xs []float64, prec int) string {
	if len(xs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.*f [%.*f – %.*f]", prec, stat.Median(xs), prec, slices.Min(xs), prec, slices.Max(xs))
}

// spreadRatio renders ratios as their median [min – max].
func spreadRatio(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f [%.3f – %.3f]", stat.Median(xs), slices.Min(xs), slices.Max(xs))
}
