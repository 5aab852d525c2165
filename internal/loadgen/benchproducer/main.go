// Command benchproducer measures loadgen's peak throughput against Kafka's
// own producer perf tool (org.apache.kafka.tools.ProducerPerformance) on
// the same local broker, run side by side in alternating rounds, and prints
// both rates and their ratio. It backs `make bench-producer`.
//
// Both produce N records of 100-byte values with acks=all, idempotence on,
// and the same linger and batch size, as fast as they can. loadgen runs as
// it does in a chaos run: keyed records partitioned by murmur2, three
// headers each, and a `produced` history event and latency sample for
// every delivery report. ProducerPerformance sends unkeyed records.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

type measurement struct {
	tool          string
	round         int
	recordsPerSec float64
	mbPerSec      float64
	elapsed       time.Duration
}

func main() {
	records := flag.Int("records", 1_000_000, "records per run")
	rounds := flag.Int("rounds", 3, "runs of each tool, alternating")
	partitions := flag.Int("partitions", 6, "partitions of each run's topic")
	valueSize := flag.Int("value-size", 100, "value size, bytes")
	clients := flag.String("clients", "confluent,franz", "loadgen's clients to measure, comma-separated: confluent, franz")
	linger := flag.Int("linger-ms", 5, "linger.ms of both producers (Kafka's default)")
	batch := flag.Int("batch-size", 1000000, "batch.size of both producers (librdkafka's default; Kafka's Java default is 16384)")
	bin := flag.String("loadgen", "bin/loadgen", "the loadgen binary")
	keep := flag.Bool("keep", false, "keep the working folder (histories, logs)")
	ceiling := flag.Bool("client-ceiling", false, "also measure confluent-kafka-go alone (no loadgen) on the same keyed records, with and without the three headers")
	flag.Parse()
	if err := run(*records, *rounds, *partitions, *valueSize, strings.Split(*clients, ","), *linger, *batch, *bin, *keep, *ceiling); err != nil {
		fmt.Fprintln(os.Stderr, "bench-producer:", err)
		os.Exit(1)
	}
}

func run(records, rounds, partitions, valueSize int, clients []string, linger, batch int, bin string, keep, ceiling bool) error {
	loadgenBin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(loadgenBin); err != nil {
		return fmt.Errorf("%w (make build)", err)
	}
	java, err := cluster.JavaCommand()
	if err != nil {
		return err
	}
	dist, err := cluster.FindDist()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "chaosbench-bench-producer-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Printf("working folder: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}

	ctx := context.Background()
	fmt.Printf("starting a local Kafka %s broker...\n", dist.Version)
	c, err := cluster.StartLocal(ctx, cluster.LocalConfig{Dir: filepath.Join(work, "kafka"), HeapMB: 1024})
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

	workloads := map[string]string{}
	tools := []string{}
	for _, client := range clients {
		if !slices.Contains(vocab.ProducerClientNames(), client) {
			return fmt.Errorf("--clients: %q: expected %s", client, strings.Join(vocab.ProducerClientNames(), " or "))
		}
		workloads[client] = filepath.Join(work, "bench-"+client+".yaml")
		tools = append(tools, "loadgen-"+client)
		if err := os.WriteFile(workloads[client], fmt.Appendf(nil, `name: bench-producer
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
`, records, partitions, valueSize, client, linger, batch), 0o644); err != nil {
			return err
		}
	}
	tools = append(tools, "java")
	if ceiling {
		tools = append(tools, "raw-confluent", "raw-confluent-headers")
	}
	fmt.Printf("%d records of %d bytes, acks=all, idempotence, linger.ms=%d, batch.size=%d, %d partitions; %d rounds, the order rotating\n\n",
		records, valueSize, linger, batch, partitions, rounds)

	// A warm-up run of each tool, not counted: the broker's first
	// idempotent producer waits for its coordinator to load, and the JVM
	// and page cache warm up.
	for _, tool := range tools {
		topic := "bench-warmup-" + tool
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := cluster.CreateTopic(tctx, adm, topic, int32(partitions), 1, nil)
		cancel()
		if err != nil {
			return err
		}
		if strings.HasPrefix(tool, "raw-") {
			continue
		} else if client, ok := strings.CutPrefix(tool, "loadgen-"); ok {
			_, err = runLoadgen(loadgenBin, c.Bootstrap(), topic, workloads[client], filepath.Join(work, topic), "--records", strconv.Itoa(min(records, 50000)))
		} else {
			_, err = runJava(java, dist.Classpath(), c.Bootstrap(), topic, min(records, 50000), valueSize, linger, batch)
		}
		if err != nil {
			return fmt.Errorf("warm-up, %s: %w", tool, err)
		}
		if _, err := adm.DeleteTopics(ctx, topic); err != nil {
			return err
		}
	}

	var ms []measurement
	for round := 1; round <= rounds; round++ {
		k := (round - 1) % len(tools)
		order := append(append([]string(nil), tools[k:]...), tools[:k]...)
		for _, tool := range order {
			topic := fmt.Sprintf("bench-%s-%d", tool, round)
			tctx, cancel := context.WithTimeout(ctx, time.Minute)
			err := cluster.CreateTopic(tctx, adm, topic, int32(partitions), 1, nil)
			cancel()
			if err != nil {
				return err
			}
			var m measurement
			if client, ok := strings.CutPrefix(tool, "loadgen-"); ok {
				m, err = runLoadgen(loadgenBin, c.Bootstrap(), topic, workloads[client], filepath.Join(work, topic))
				m.tool = tool
			} else if raw, ok := strings.CutPrefix(tool, "raw-confluent"); ok {
				m.tool = tool
				m.recordsPerSec, err = confluentCeiling(c.Bootstrap(), topic, records, partitions, valueSize, linger, batch, raw != "")
				m.mbPerSec = m.recordsPerSec * float64(valueSize) / (1 << 20)
			} else {
				m, err = runJava(java, dist.Classpath(), c.Bootstrap(), topic, records, valueSize, linger, batch)
			}
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", round, tool, err)
			}
			m.round = round
			ms = append(ms, m)
			fmt.Printf("round %d  %-26s %10.0f records/s  %7.2f MB/s\n", round, label(m.tool), m.recordsPerSec, m.mbPerSec)
			// Drop the topic so that every run starts on an empty log.
			if _, err := adm.DeleteTopics(ctx, topic); err != nil {
				return err
			}
		}
	}
	med := func(tool string, f func(measurement) float64) float64 {
		var xs []float64
		for _, m := range ms {
			if m.tool == tool {
				xs = append(xs, f(m))
			}
		}
		slices.Sort(xs)
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	rps := func(m measurement) float64 { return m.recordsPerSec }
	mbs := func(m measurement) float64 { return m.mbPerSec }
	jr := med("java", rps)
	fmt.Printf("\nmedian of %d rounds:\n", rounds)
	for _, tool := range tools {
		fmt.Printf("  %-26s %10.0f records/s  %7.2f MB/s\n", label(tool), med(tool, rps), med(tool, mbs))
	}
	for _, tool := range tools {
		if tool != "java" {
			fmt.Printf("  ratio %s / ProducerPerformance: %.2f\n", label(tool), med(tool, rps)/jr)
		}
	}
	return nil
}

func label(tool string) string {
	switch tool {
	case "java":
		return "ProducerPerformance (Java)"
	case "raw-confluent":
		return "confluent-kafka-go alone"
	case "raw-confluent-headers":
		return "confluent-kafka-go + 3 hdrs"
	}
	return "loadgen (" + strings.TrimPrefix(tool, "loadgen-") + ")"
}

func runLoadgen(bin, bootstrap, topic, workload, out string, extra ...string) (measurement, error) {
	args := append([]string{"run", "--bootstrap", bootstrap, "--topic", topic, "--out", out, "--quiet"}, extra...)
	cmd := exec.Command(bin, append(args, workload)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return measurement{}, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	var sum struct {
		RecordsPerS float64 `json:"records_per_s"`
		ValueMBPerS float64 `json:"value_mb_per_s"`
		ElapsedS    float64 `json:"elapsed_s"`
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
	// The history is part of the run: remove it only now.
	_ = os.RemoveAll(filepath.Join(out, "history"))
	return measurement{recordsPerSec: sum.RecordsPerS, mbPerSec: sum.ValueMBPerS, elapsed: time.Duration(sum.ElapsedS * float64(time.Second))}, nil
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
	if err := cmd.Run(); err != nil {
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
	return measurement{tool: "java", recordsPerSec: rps, mbPerSec: mbs}, nil
}
