package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
)

const clusterUsage = `usage: chaos cluster SUBCOMMAND [flags]

  fetch    fetch the pinned Apache Kafka jars from Maven Central into the cache
  up       start a local Kafka cluster (KRaft) that stays up until "down"
  down     stop the local cluster started by "up" and delete its data
  status   describe the local cluster, or an external one (--bootstrap)
`

// defaultClusterDir is where `cluster up` keeps its cluster:
// CHAOSBENCH_CLUSTER_DIR, else .chaosbench/cluster under the current folder.
func defaultClusterDir() string {
	if d := os.Getenv("CHAOSBENCH_CLUSTER_DIR"); d != "" {
		return d
	}
	return filepath.Join(".chaosbench", "cluster")
}

func init() {
	register("cluster", "start, stop, describe or fetch a local Kafka cluster", runCluster)
}

func runCluster(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, clusterUsage)
		return cli.Usagef("cluster: missing subcommand")
	}
	switch args[0] {
	case "fetch":
		return clusterFetch(args[1:])
	case "up":
		return clusterUp(args[1:])
	case "down":
		return clusterDown(args[1:])
	case "status":
		return clusterStatus(args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Print(clusterUsage)
		return nil
	}
	fmt.Fprint(os.Stderr, clusterUsage)
	return cli.Usagef("cluster: unknown subcommand %q", args[0])
}

func clusterFetch(args []string) error {
	fs := cli.NewFlagSet("chaos cluster fetch", os.Stderr)
	fs.Usage = subUsage(fs, `usage: chaos cluster fetch

Fetches the Apache Kafka jars chaosbench pins from Maven Central (with
Maven) into ~/.cache/chaosbench, once; with KAFKA_HOME set, that
distribution is used instead and nothing is fetched. Takes no flags.
`)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	d, err := cluster.FetchDist(ctx, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Printf("Apache Kafka %s (%s): %s\n", d.Version, d.Source, d.Libs)
	return nil
}

// brokerConfigFlag collects --broker-config key=value.
type brokerConfigFlag struct{ s cluster.Settings }

func (f *brokerConfigFlag) String() string { return fmt.Sprint(f.s) }
func (f *brokerConfigFlag) Set(v string) error {
	k, val, err := cluster.ParseSetting(v)
	if err != nil {
		return err
	}
	if f.s == nil {
		f.s = cluster.Settings{}
	}
	f.s[k] = val
	return nil
}

func clusterUp(args []string) error {
	fs := cli.NewFlagSet("chaos cluster up", os.Stderr)
	fs.Usage = subUsage(fs, `usage: chaos cluster up [flags]

Starts a local Kafka cluster (KRaft, 1 or 3 combined broker and
controller nodes on 127.0.0.1) that stays up until chaos cluster down.

Flags:
`)
	brokers := fs.Int("brokers", 1, "number of brokers: 1 or 3 (KRaft combined broker+controller nodes)")
	dir := fs.String("dir", defaultClusterDir(), "folder for the cluster's configuration, data and state")
	logDir := fs.String("log-dir", "", "folder for the brokers' logs (default DIR/logs)")
	port := fs.Int("port", 9092, "client port of the first broker; the others follow (0: any free ports)")
	heap := fs.Int("heap-mb", 1024, "Java heap of each broker, in MiB")
	var bc brokerConfigFlag
	fs.Var(&bc, "broker-config", "broker property key=value, repeatable (e.g. group.initial.rebalance.delay.ms=0)")
	asJSON := fs.Bool("json", false, "print the cluster description as JSON")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if *brokers != 1 && *brokers != 3 {
		return cli.Usagef("--brokers %d: expected 1 or 3", *brokers)
	}
	if l, err := cluster.AttachLocal(*dir); err == nil {
		info, _ := l.Info(context.Background())
		return fmt.Errorf("a local cluster is already recorded in %s (bootstrap %s): run `chaos cluster down` first", *dir, info.Bootstrap)
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	if _, err := cluster.FetchDist(ctx, os.Stderr); err != nil {
		return err
	}
	start := time.Now()
	l, err := cluster.StartLocal(ctx, cluster.LocalConfig{
		Nodes: *brokers, Dir: *dir, LogDir: *logDir, Port: *port, HeapMB: *heap,
		Settings: bc.s, Detached: true,
	})
	if err != nil {
		return err
	}
	ready := time.Since(start)
	info, err := l.Info(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(info)
	}
	fmt.Printf("Kafka %s ready in %.1fs: %d broker(s), bootstrap %s, cluster id %s\n",
		info.KafkaVersion, ready.Seconds(), info.Brokers, info.Bootstrap, info.ClusterID)
	fmt.Printf("logs: %s; stop with `chaos cluster down` (make kafka-down)\n", filepath.Dir(info.Nodes[0].Log))
	return nil
}

func clusterDown(args []string) error {
	fs := cli.NewFlagSet("chaos cluster down", os.Stderr)
	fs.Usage = subUsage(fs, `usage: chaos cluster down [flags]

Stops the local cluster chaos cluster up started and deletes its data
(its logs stay).

Flags:
`)
	dir := fs.String("dir", defaultClusterDir(), "folder given to chaos cluster up")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	l, err := cluster.AttachLocal(*dir)
	if errors.Is(err, cluster.ErrNotRunning) {
		fmt.Printf("no local cluster recorded in %s\n", *dir)
		return nil
	}
	if err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	if err := l.Close(ctx); err != nil {
		return err
	}
	// The data goes; the logs stay for reading.
	entries, _ := os.ReadDir(l.Dir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "node-") {
			_ = os.RemoveAll(filepath.Join(l.Dir(), e.Name()))
		}
	}
	fmt.Printf("local cluster in %s stopped\n", *dir)
	return nil
}

func clusterStatus(args []string) error {
	fs := cli.NewFlagSet("chaos cluster status", os.Stderr)
	fs.Usage = subUsage(fs, `usage: chaos cluster status [flags]

Describes the local cluster chaos cluster up started or, with --bootstrap
(or KAFKA_BOOTSTRAP), an external one: cluster id, brokers, the Kafka
version the broker reports, and the broker settings that shape
rebalances.

Flags:
`)
	dir := fs.String("dir", defaultClusterDir(), "folder given to chaos cluster up")
	bootstrap := fs.String("bootstrap", "", "describe this external cluster instead (default $KAFKA_BOOTSTRAP)")
	var props kafkaconf.Flag
	props.Register(fs)
	asJSON := fs.Bool("json", false, "print JSON: bootstrap, cluster_id, brokers, kafka_version, broker_settings, ...")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	var c cluster.Cluster
	if b := firstNonEmpty(*bootstrap, os.Getenv("KAFKA_BOOTSTRAP")); b != "" {
		ext, err := cluster.OpenExternal(ctx, b, props.Props)
		if err != nil {
			return err
		}
		c = ext
	} else {
		l, err := cluster.AttachLocal(*dir)
		if err != nil {
			return fmt.Errorf("%w (start one with `make kafka-up`, or pass --bootstrap)", err)
		}
		c = l
	}
	info, err := c.Info(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(info)
	}
	fmt.Printf("provider:      %s\nbootstrap:     %s\ncluster id:    %s\nbrokers:       %d %v (controller %d)\nkafka version: %s (the broker reports %s)\n",
		info.Provider, info.Bootstrap, info.ClusterID, info.Brokers, info.BrokerIDs, info.Controller, info.KafkaVersion, info.BrokerVersion)
	for _, n := range info.Nodes {
		fmt.Printf("node %d:        pid %d, %s, alive %v, log %s\n", n.ID, n.PID, n.Address, n.Alive, n.Log)
	}
	fmt.Println("broker settings:")
	for _, k := range cluster.Settings(info.BrokerSettings).Keys() {
		fmt.Printf("  %s=%s\n", k, info.BrokerSettings[k])
	}
	return nil
}

// subUsage returns a usage function that prints text and the flags.
func subUsage(fs *flag.FlagSet, text string) func() {
	return func() {
		fmt.Fprint(fs.Output(), text)
		fs.PrintDefaults()
	}
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
