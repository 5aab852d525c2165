// Command loadgen is chaosbench's producer: it replays a workload's keyed
// traffic against any Kafka cluster and records every delivery, and it
// answers the partitioning questions every Kafka user asks.
//
//	loadgen run WORKLOAD          produce a workload's traffic (the producer side of a run)
//	loadgen partition KEY...      which partition each key goes to
//	loadgen plan WORKLOAD         predicted load per partition; keys moved when partitions grow
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/version"
)

type command struct {
	summary string
	run     func(args []string) error
}

var commands = map[string]command{
	"run":       {"produce a workload's traffic against a Kafka cluster, recording every delivery", runCommand},
	"partition": {"print the partition of each key under a partitioner", partitionCommand},
	"plan":      {"predict the traffic per partition, and the keys moved when partitions are added", planCommand},
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: loadgen COMMAND [flags] [args]

  run WORKLOAD                                   produce a workload's traffic against a Kafka cluster
  partition --partitioner NAME --partitions N KEY...   print each key and its partition
  plan WORKLOAD                                  predicted share of traffic per partition; keys moved by partition growth
  version                                        the versions of chaosbench, Go, the client libraries and Kafka (also --version)

Run `+"`loadgen COMMAND -h`"+` for a command's flags.
`)
}

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(cli.ExitUsage)
	}
	name := os.Args[1]
	switch name {
	case "help", "-h", "-help", "--help":
		usage(os.Stdout)
		return
	case "version", "-version", "--version":
		version.Print(os.Stdout, "loadgen", [2]string{"kafka", cluster.KafkaVersion + " (local provider; docker provider: image " + cluster.DockerImage + ")"})
		return
	}
	// The producer allocates a little per record and has memory to spare:
	// fewer collections leave more CPU to the client and the broker.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "loadgen: unknown command %s\n\n", clip.Quote(name))
		usage(os.Stderr)
		os.Exit(cli.ExitUsage)
	}
	cli.Exit("loadgen "+name, c.run(os.Args[2:]))
}
