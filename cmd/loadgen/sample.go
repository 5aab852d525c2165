package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/partitioner"
	"github.com/chaosbench/chaosbench/workloads"
)

func sampleCommand(args []string) error { return sample(args, os.Stdout, os.Stderr) }

const sampleUsage = `usage: loadgen sample --bootstrap HOST:PORT --topic TOPIC [flags]

Reads a bounded sample of an existing topic's keys and writes the workload
keys section that reproduces their distribution: the heaviest keys by name
with their shares (renamed on request: --anonymize), the rest spread over
formatted keys, with comments saying how far the section reproduces the
topic's partition skew and which partitioner it assumes. Paste it into a
workload (with the producer.partitioner and topic.partitions it names).

It only reads: a consumer of assigned partitions, in no consumer group,
that never commits an offset. The sample is the latest records of every
partition, in proportion to each partition's records in the window (the
whole retained log, or --since).

Flags:
`

func sample(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("loadgen sample", stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), sampleUsage); fs.PrintDefaults() }
	bootstrap := fs.String("bootstrap", "", "bootstrap.servers of the cluster (default $KAFKA_BOOTSTRAP)")
	var props kafkaconf.Flag
	props.Register(fs)
	topic := fs.String("topic", "", "the topic to sample (required)")
	records := fs.Int64("records", 100_000, "records to read at most")
	since := fs.Duration("since", 0, "the window: records appended in this last span (e.g. 1h); default the whole retained log")
	top := fs.Int("top", 500, "keys to name at most: the heaviest, each seen at least --min-count times")
	minCount := fs.Int("min-count", 5, "the fewest records a key must have in the sample to be named")
	anonymize := fs.String("anonymize", "", "rename the named keys: hash (after a hash of the key: the same key, the same name) or index (after its rank); each new name falls in the key's partition")
	part := fs.String("partitioner", "", "the topic's partitioner, of "+joinNames(partitioner.Names())+" (default: the one that puts the sampled keys where they were seen)")
	timeout := fs.Duration("timeout", 2*time.Minute, "how long to read at most")
	out := fs.String("o", "", "write the keys section to this new file (never overwritten) instead of the standard output")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %v", fs.Args())
	}
	if *bootstrap == "" {
		*bootstrap = os.Getenv("KAFKA_BOOTSTRAP")
	}
	switch {
	case *bootstrap == "":
		return cli.Usagef("--bootstrap: required (or KAFKA_BOOTSTRAP): the cluster whose topic to sample")
	case *topic == "":
		return cli.Usagef("--topic: required: the topic to sample")
	case *records < 1 || *records > workloads.MaxKeys:
		return cli.Usagef("--records %d: expected from 1 to %d", *records, workloads.MaxKeys)
	case *since < 0:
		return cli.Usagef("--since %v: expected a duration >= 0 (0: the whole retained log)", *since)
	case *top < 0 || *top > 100_000:
		return cli.Usagef("--top %d: expected from 0 to 100000", *top)
	case *minCount < 1:
		return cli.Usagef("--min-count %d: expected >= 1", *minCount)
	case *anonymize != "" && *anonymize != "hash" && *anonymize != "index":
		return cli.Usagef("--anonymize %q: expected hash or index", *anonymize)
	case *timeout <= 0:
		return cli.Usagef("--timeout %v: expected a duration > 0", *timeout)
	}
	if *part != "" {
		if _, err := partitioner.New(*part); err != nil {
			return cli.Usagef("--partitioner %q: expected one of %s", *part, joinNames(partitioner.Names()))
		}
	}
	if err := loadgen.CheckProps(props.Props); err != nil {
		return cli.Usage(err)
	}
	var w io.Writer = stdout
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return cli.Usagef("-o %s: exists (never overwritten)", *out)
		}
		if err != nil {
			return cli.Usage(err)
		}
		defer f.Close()
		w = f
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	s, err := loadgen.Sample(ctx, loadgen.SampleConfig{Bootstrap: *bootstrap, Props: props.Props, Topic: *topic,
		Records: *records, Since: *since, Timeout: *timeout, Log: stderr})
	if err != nil {
		if *out != "" {
			os.Remove(*out)
		}
		return err
	}
	fit, err := workloads.FitKeys(s, workloads.FitOptions{Top: *top, MinCount: *minCount, Anonymize: *anonymize, Partitioner: *part})
	if err != nil {
		if *out != "" {
			os.Remove(*out)
		}
		return err
	}
	window := "the whole retained log"
	if *since > 0 {
		window = "the last " + since.String()
	}
	header := []string{fmt.Sprintf("Keys of topic %s, sampled by loadgen sample on %s from %s.", *topic, time.Now().UTC().Format("2006-01-02 15:04 UTC"), window)}
	if *anonymize != "" {
		header = append(header, "Key names anonymised ("+*anonymize+"): each falls in its key's partition.")
	}
	_, err = w.Write(fit.YAML(header))
	return err
}

func joinNames(ns []string) string {
	out := ""
	for i, n := range ns {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
