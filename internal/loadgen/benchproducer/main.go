// Command benchproducer measures loadgen's peak throughput against Kafka's
// own producer perf tool (org.apache.kafka.tools.ProducerPerformance) on
// the same local broker, run side by side in alternating rounds, and prints
// both rates, the CPU each producing process used, and their ratios with
// their spread over the rounds. It backs `make bench-producer`.
//
// Both produce N records of 100-byte values with acks=all, idempotence on,
// and the same linger and batch size, as fast as they can. loadgen runs as
// it does in a chaos run: keyed records partitioned by murmur2, each value
// led by its stamp, and a `produced` history event and latency sample for
// every delivery report. ProducerPerformance sends unkeyed records.
//
// On a shared machine a rate drifts with the neighbours' load; the CPU
// time of the producing process does much less, and it is what a user
// running the producer beside the system under test pays. Each process is
// a child of this one, so its CPU time is its own rusage, reaped at exit.
package main

import (
	"bufio"
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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/stamp"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// measurement is one run of one contestant.
type measurement struct {
	tool          string
	round         int
	recordsPerSec float64
	mbPerSec      float64
	// cpu is the user and system CPU time of the producing process, from
	// its start to its exit: start-up, connection, sending, closing. Only
	// the producer's: the broker is another process.
	cpu time.Duration
	// startup is the CPU time of a one-record run of the same contestant
	// just before.
	startup time.Duration
}

// options are the benchmark's flags.
type options struct {
	records, rounds, partitions, valueSize int
	clients                                []string
	linger, batch                          int
	bin, baseline                          string
	keep, ceiling                          bool
}

func main() {
	var o options
	flag.IntVar(&o.records, "records", 1_000_000, "records per run")
	flag.IntVar(&o.rounds, "rounds", 5, "runs of each contestant, the order rotating")
	flag.IntVar(&o.partitions, "partitions", 6, "partitions of each run's topic")
	flag.IntVar(&o.valueSize, "value-size", 100, "value size, bytes")
	clients := flag.String("clients", "confluent,franz", "loadgen's clients to measure, comma-separated: confluent, franz")
	flag.IntVar(&o.linger, "linger-ms", 5, "linger.ms of both producers (Kafka's default)")
	flag.IntVar(&o.batch, "batch-size", 1000000, "batch.size of both producers (librdkafka's default; Kafka's Java default is 16384)")
	flag.StringVar(&o.bin, "loadgen", "bin/loadgen", "the loadgen binary")
	flag.StringVar(&o.baseline, "baseline", "", "an earlier loadgen binary, measured beside --loadgen with the same clients: before and after in one run")
	flag.BoolVar(&o.keep, "keep", false, "keep the working folder (histories, logs)")
	profile := flag.String("profile", "", "a new folder for a Go CPU profile of every loadgen run (<topic>.pprof) and the CPU of every producing process by thread (<topic>.threads.txt)")
	flag.BoolVar(&o.ceiling, "client-ceiling", false, "also measure confluent-kafka-go alone (no loadgen) on the same keyed records: bare, with loadgen's stamp in the value, with the stamp's three values in one header, and in three headers (loadgen's record format before the stamp)")
	flag.Parse()
	o.clients = strings.Split(*clients, ",")
	if err := cli.CheckRanges(
		cli.IntRange{Flag: "records", Value: o.records, Min: 1, Max: 1_000_000_000},
		cli.IntRange{Flag: "rounds", Value: o.rounds, Min: 1, Max: 100},
		cli.IntRange{Flag: "partitions", Value: o.partitions, Min: 1, Max: workloads.MaxPartitions},
		// Both sides send values of this size: loadgen's hold its stamp,
		// which a smaller value.size would make larger than asked.
		cli.IntRange{Flag: "value-size", Value: o.valueSize, Min: stamp.Len(len("producer-0")), Max: workloads.MaxValueSize},
		cli.IntRange{Flag: "linger-ms", Value: o.linger, Min: 0, Max: 60_000},
		cli.IntRange{Flag: "batch-size", Value: o.batch, Min: 1, Max: 1 << 30},
	); err != nil {
		fmt.Fprintln(os.Stderr, "bench-producer:", err)
		os.Exit(2)
	}
	for _, client := range o.clients {
		if !slices.Contains(vocab.ProducerClientNames(), client) {
			fmt.Fprintf(os.Stderr, "bench-producer: --clients: %q: expected %s\n", client, strings.Join(vocab.ProducerClientNames(), " or "))
			os.Exit(2)
		}
	}
	if *profile != "" {
		if err := os.Mkdir(*profile, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "bench-producer: --profile: %v (a new folder: profiles are never overwritten)\n", err)
			os.Exit(2)
		}
		profileDir = *profile
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-producer:", err)
		os.Exit(1)
	}
}

// profileDir, if not empty, receives the profiles of the runs (--profile).
var profileDir string

// runProducer runs a producing process to its end, sampling its threads'
// CPU into profileDir/<name>.threads.txt when profiling.
func runProducer(cmd *exec.Cmd, name string) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	var th *threadCPU
	if profileDir != "" {
		th = sampleThreads(cmd.Process.Pid)
	}
	// The sampler's last reading before the process exits counts: Wait
	// reaps it, and its threads are gone from /proc.
	err := cmd.Wait()
	if th != nil {
		th.end()
		f, ferr := os.OpenFile(filepath.Join(profileDir, name+".threads.txt"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if ferr != nil {
			return errors.Join(err, ferr)
		}
		th.write(f, cpuOf(cmd.ProcessState))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// bench is one run of the benchmark: its broker, its contestants (tools:
// loadgen-<client>, base-<client>, java, raw-<variant>) and what each
// measured.
type bench struct {
	o         options
	bins      map[string]string // "loadgen" and "base": absolute paths
	java      string
	dist      cluster.Dist
	work      string
	c         *cluster.Local
	adm       *kadm.Client
	workloads map[string]string // client: its workload file
	tools     []string
	ms        []measurement
}

func run(o options) error {
	b := &bench{o: o, bins: map[string]string{}, workloads: map[string]string{}}
	if err := b.find(); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "chaosbench-bench-producer-")
	if err != nil {
		return err
	}
	b.work = work
	if o.keep {
		fmt.Printf("working folder: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	fmt.Printf("starting a local Kafka %s broker...\n", b.dist.Version)
	if b.c, err = cluster.StartLocal(context.Background(), cluster.LocalConfig{Dir: filepath.Join(work, "kafka"), HeapMB: 1024}); err != nil {
		return err
	}
	defer func() {
		if err := b.c.Close(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "stop broker:", err)
		}
	}()
	if b.adm, err = cluster.NewAdmin(b.c.Bootstrap(), nil); err != nil {
		return err
	}
	defer b.adm.Close()
	if err := b.contestants(); err != nil {
		return err
	}
	b.header()
	if err := b.warmUp(); err != nil {
		return err
	}
	if err := b.measure(); err != nil {
		return err
	}
	b.summary()
	return nil
}

// find locates the loadgen binaries, Java and the Kafka distribution.
func (b *bench) find() error {
	for kind, path := range map[string]string{"loadgen": b.o.bin, "base": b.o.baseline} {
		if path == "" {
			continue
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("%w (make build)", err)
		}
		b.bins[kind] = abs
	}
	var err error
	if b.java, err = cluster.JavaCommand(); err != nil {
		return err
	}
	b.dist, err = cluster.FindDist()
	return err
}

// contestants lists the tools and writes each loadgen client's workload.
func (b *bench) contestants() error {
	o := b.o
	for _, client := range o.clients {
		b.workloads[client] = filepath.Join(b.work, "bench-"+client+".yaml")
		b.tools = append(b.tools, "loadgen-"+client)
		if b.bins["base"] != "" {
			b.tools = append(b.tools, "base-"+client)
		}
		if err := os.WriteFile(b.workloads[client], fmt.Appendf(nil, `name: bench-producer
seed: 1
records: %d
topic: {partitions: %d}
keys: {count: 10000, distribution: uniform}
value: {size: %d}
producer:
  client: %s
  rate: unlimited
  acks: all
  idempotence: true
  max_in_flight: 5
  linger: %dms
  batch_size: %d
  partitioner: murmur2
`, o.records, o.partitions, o.valueSize, client, o.linger, o.batch), 0o644); err != nil {
			return err
		}
	}
	b.tools = append(b.tools, "java")
	if o.ceiling {
		b.tools = append(b.tools, "raw-confluent", "raw-confluent-stamp", "raw-confluent-1hdr", "raw-confluent-headers")
	}
	return nil
}

func (b *bench) header() {
	o := b.o
	fmt.Printf("%d records of %d bytes, acks=all, idempotence, max.in.flight=5, linger.ms=%d, batch.size=%d, %d partitions, one broker;\n",
		o.records, o.valueSize, o.linger, o.batch, o.partitions)
	fmt.Printf("no compression, no other Kafka setting on either side; %d rounds, the order rotating; load average %s\n", o.rounds, loadavg())
	fmt.Printf("CPU: user+system time of the producing process alone (loadgen, or the JVM of ProducerPerformance), start to exit\n\n")
}

// one runs one contestant on a fresh topic, which it drops after.
func (b *bench) one(tool, topic string, n int) (measurement, error) {
	o := b.o
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err := cluster.CreateTopic(ctx, b.adm, topic, int32(o.partitions), 1, nil)
	cancel()
	if err != nil {
		return measurement{}, err
	}
	var m measurement
	switch kind, client, _ := strings.Cut(tool, "-"); kind {
	case "loadgen", "base":
		m, err = runLoadgen(b.bins[kind], b.c.Bootstrap(), topic, b.workloads[client], filepath.Join(b.work, topic), "--records", strconv.Itoa(n))
	case "raw":
		form := map[string]ceilingForm{"confluent": bare, "confluent-stamp": stamped, "confluent-1hdr": oneHeader, "confluent-headers": threeHeaders}[client]
		m, err = confluentCeiling(b.c.Bootstrap(), topic, n, o.partitions, o.valueSize, o.linger, o.batch, form)
		m.mbPerSec = m.recordsPerSec * float64(o.valueSize) / (1 << 20)
	default:
		m, err = runJava(b.java, b.dist.Classpath(), b.c.Bootstrap(), topic, n, o.valueSize, o.linger, o.batch)
	}
	m.tool = tool
	// Drop the topic so that every run starts on an empty log.
	if _, derr := b.adm.DeleteTopics(context.Background(), topic); err == nil {
		err = derr
	}
	return m, err
}

// warmUp runs each contestant once, not counted: the broker's first
// idempotent producer waits for its coordinator to load, and the JVM and
// page cache warm up.
func (b *bench) warmUp() error {
	for _, tool := range b.tools {
		if strings.HasPrefix(tool, "raw-") {
			continue
		}
		if _, err := b.one(tool, "bench-warmup-"+tool, min(b.o.records, 50000)); err != nil {
			return fmt.Errorf("warm-up, %s: %w", tool, err)
		}
	}
	return nil
}

// measure runs the rounds. Every round runs each contestant once, the
// order rotating, each run preceded by a one-record run of the same
// contestant: the CPU a process spends whatever it sends (start-up,
// connecting, closing), so that the CPU of sending alone is known too.
func (b *bench) measure() error {
	records := b.o.records
	for round := 1; round <= b.o.rounds; round++ {
		k := (round - 1) % len(b.tools)
		order := append(append([]string(nil), b.tools[k:]...), b.tools[:k]...)
		for _, tool := range order {
			var startup time.Duration
			if !strings.HasPrefix(tool, "raw-") {
				m, err := b.one(tool, fmt.Sprintf("bench-startup-%s-%d", tool, round), 1)
				if err != nil {
					return fmt.Errorf("round %d, %s, one record: %w", round, tool, err)
				}
				startup = m.cpu
			}
			m, err := b.one(tool, fmt.Sprintf("bench-%s-%d", tool, round), records)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", round, tool, err)
			}
			m.round, m.startup = round, startup
			b.ms = append(b.ms, m)
			fmt.Printf("round %d  %-30s %9.0f records/s  %6.2f MB/s  CPU %6.2fs (1 record: %5.2fs)  %9.0f records/CPU-s  %9.0f net\n",
				round, label(m.tool), m.recordsPerSec, m.mbPerSec, m.cpu.Seconds(), m.startup.Seconds(), perCPU(m, records), perCPUNet(m, records))
		}
	}
	return nil
}

// summary prints every contestant's spread over the rounds, then its
// ratios to ProducerPerformance and, with a baseline, to the baseline.
func (b *bench) summary() {
	ms, records := b.ms, b.o.records
	rate := func(m measurement) float64 { return m.recordsPerSec }
	cpuRate := func(m measurement) float64 { return perCPU(m, records) }
	netRate := func(m measurement) float64 { return perCPUNet(m, records) }
	fmt.Printf("\nover %d rounds: median [min - max]; load average %s\n", b.o.rounds, loadavg())
	fmt.Printf("  %-30s %-26s %-26s %-26s %s\n", "", "records/s", "records per CPU-second", "net of the 1-record run", "CPU of a 1-record run")
	for _, tool := range b.tools {
		fmt.Printf("  %-30s %-26s %-26s %-26s %s\n", label(tool), spread(values(ms, tool, rate), "%.0f"), spread(values(ms, tool, cpuRate), "%.0f"),
			spread(values(ms, tool, netRate), "%.0f"), spread(values(ms, tool, func(m measurement) float64 { return m.startup.Seconds() }), "%.2fs"))
	}
	// Ratios are taken round by round, each run against ProducerPerformance's
	// run of the same round: both met the same neighbours, or nearly.
	fmt.Printf("\nratio to ProducerPerformance, round by round: median [min - max] (rounds above 1)\n")
	fmt.Printf("  %-30s %-28s %-28s %s\n", "", "records/s", "records per CPU-second", "net of the 1-record run")
	for _, tool := range b.tools {
		if tool == "java" {
			continue
		}
		fmt.Printf("  %-30s %-28s %-28s %s\n", label(tool), ratioSpread(ratios(ms, tool, rate)), ratioSpread(ratios(ms, tool, cpuRate)), ratioSpread(ratios(ms, tool, netRate)))
	}
	if b.bins["base"] != "" {
		fmt.Printf("\nratio to the baseline loadgen, round by round: median [min - max] (rounds above 1)\n")
		for _, client := range b.o.clients {
			a, base := "loadgen-"+client, "base-"+client
			fmt.Printf("  %-30s %-28s %-28s %s\n", label(a), ratioSpread(ratiosTo(ms, a, base, rate)),
				ratioSpread(ratiosTo(ms, a, base, cpuRate)), ratioSpread(ratiosTo(ms, a, base, netRate)))
		}
	}
}

func perCPU(m measurement, records int) float64 {
	if m.cpu <= 0 {
		return 0
	}
	return float64(records) / m.cpu.Seconds()
}

// perCPUNet is records per CPU-second of sending alone: the run's CPU less
// that of the one-record run before it (none for the in-process ceiling).
func perCPUNet(m measurement, records int) float64 {
	if d := m.cpu - m.startup; d > 0 {
		return float64(records) / d.Seconds()
	}
	return 0
}

// values returns f of every run of tool, in round order.
func values(ms []measurement, tool string, f func(measurement) float64) []float64 {
	var xs []float64
	for _, m := range ms {
		if m.tool == tool {
			xs = append(xs, f(m))
		}
	}
	return xs
}

func ratios(ms []measurement, tool string, f func(measurement) float64) []float64 {
	return ratiosTo(ms, tool, "java", f)
}

// ratiosTo returns, round by round, f of tool's run over f of ref's run.
func ratiosTo(ms []measurement, tool, ref string, f func(measurement) float64) []float64 {
	a, b := values(ms, tool, f), values(ms, ref, f)
	var rs []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	return rs
}

// spread formats the median, minimum and maximum of xs.
func spread(xs []float64, format string) string {
	if len(xs) == 0 {
		return "-"
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	med := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		med = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return fmt.Sprintf(format+" ["+format+" - "+format+"]", med, xs[0], xs[len(xs)-1])
}

// ratioSpread formats ratios as their spread and the count of rounds in
// which the ratio is above 1: a claim holds when every round makes it, not
// only the median.
func ratioSpread(rs []float64) string {
	above := 0
	for _, r := range rs {
		if r > 1 {
			above++
		}
	}
	return fmt.Sprintf("%s (%d/%d)", spread(rs, "%.2f"), above, len(rs))
}

// loadavg is the machine's 1-minute load average, or "?".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func label(tool string) string {
	switch tool {
	case "java":
		return "ProducerPerformance (Java)"
	case "raw-confluent":
		return "confluent-kafka-go alone"
	case "raw-confluent-stamp":
		return "confluent-kafka-go + stamp"
	case "raw-confluent-1hdr":
		return "confluent-kafka-go + 1 hdr"
	case "raw-confluent-headers":
		return "confluent-kafka-go + 3 hdrs"
	}
	if client, ok := strings.CutPrefix(tool, "base-"); ok {
		return "baseline loadgen (" + client + ")"
	}
	return "loadgen (" + strings.TrimPrefix(tool, "loadgen-") + ")"
}

// cpuOf returns the user and system CPU time of an exited child.
func cpuOf(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

func runLoadgen(bin, bootstrap, topic, workload, out string, extra ...string) (measurement, error) {
	args := append([]string{"run", "--bootstrap", bootstrap, "--topic", topic, "--out", out, "--quiet"}, extra...)
	if profileDir != "" {
		args = append(args, "--cpuprofile", filepath.Join(profileDir, topic+".pprof"))
	}
	cmd := exec.Command(bin, append(args, workload)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := runProducer(cmd, topic); err != nil {
		return measurement{}, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	var sum struct {
		RecordsPerS float64 `json:"records_per_s"`
		ValueMBPerS float64 `json:"value_mb_per_s"`
		Acked       int64   `json:"acked"`
		Sent        int64   `json:"sent"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		return measurement{}, err
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return measurement{}, err
	}
	if sum.Acked != sum.Sent {
		return measurement{}, fmt.Errorf("acked %d of %d records", sum.Acked, sum.Sent)
	}
	// The history is part of the run: check that it holds one produced
	// event per record, then remove it.
	if err := checkHistory(filepath.Join(out, "history"), sum.Sent); err != nil {
		return measurement{}, err
	}
	_ = os.RemoveAll(filepath.Join(out, "history"))
	return measurement{recordsPerSec: sum.RecordsPerS, mbPerSec: sum.ValueMBPerS, cpu: cpuOf(cmd.ProcessState)}, nil
}

// checkHistory counts the lines of the history files in dir: one per
// delivery report.
func checkHistory(dir string, want int64) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return err
	}
	var n int64
	buf := make([]byte, 1<<20)
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		for {
			k, err := f.Read(buf)
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			if err == io.EOF {
				break
			} else if err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
	}
	if n != want {
		return fmt.Errorf("history %s: %d events for %d records", dir, n, want)
	}
	return nil
}

// ProducerPerformance's final line: "N records sent, X records/sec (Y MB/sec), ...".
var perfLine = regexp.MustCompile(`^(\d+) records sent, ([0-9.]+) records/sec \(([0-9.]+) MB/sec\)`)

func runJava(java, classpath, bootstrap, topic string, records, valueSize, linger, batch int) (measurement, error) {
	cmd := exec.Command(java, "-Xmx1g", "-cp", classpath, "org.apache.kafka.tools.ProducerPerformance",
		"--topic", topic, "--num-records", strconv.Itoa(records), "--record-size", strconv.Itoa(valueSize),
		"--throughput", "-1", "--producer-props",
		"bootstrap.servers="+bootstrap, "acks=all", "enable.idempotence=true",
		"max.in.flight.requests.per.connection=5",
		"linger.ms="+strconv.Itoa(linger), "batch.size="+strconv.Itoa(batch))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := runProducer(cmd, topic); err != nil {
		return measurement{}, fmt.Errorf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	var last []string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if m := perfLine.FindStringSubmatch(sc.Text()); m != nil {
			last = m
		}
	}
	if last == nil {
		return measurement{}, fmt.Errorf("no result line in ProducerPerformance's output:\n%s", stdout.String())
	}
	if n, _ := strconv.Atoi(last[1]); n != records {
		return measurement{}, fmt.Errorf("ProducerPerformance sent %d of %d records", n, records)
	}
	rps, _ := strconv.ParseFloat(last[2], 64)
	mbs, _ := strconv.ParseFloat(last[3], 64)
	return measurement{tool: "java", recordsPerSec: rps, mbPerSec: mbs, cpu: cpuOf(cmd.ProcessState)}, nil
}

// selfCPU returns this process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
