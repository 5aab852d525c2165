// Command loadgen is chaosbench's producer: it replays a workload's keyed
// traffic against any Kafka cluster and records every delivery, and it
// answers the partitioning questions every Kafka user asks.
//
//	loadgen run WORKLOAD          produce a workload's traffic (the producer side of a run)
//	loadgen partition KEY...      which partition each key goes to
//	loadgen plan WORKLOAD         predicted load per partition; keys moved when partitions grow
//	loadgen sample --topic T      a topic's keys as a workload's keys section
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/version"
)

var commands = map[string]cli.Command{
	"run":       {Summary: "produce a workload's traffic against a Kafka cluster, recording every delivery", Run: runCommand},
	"partition": {Summary: "print the partition of each key under a partitioner", Run: partitionCommand},
	"plan":      {Summary: "predict the traffic per partition, and the keys moved when partitions are added", Run: planCommand},
	"sample":    {Summary: "sample an existing topic's keys into a workload's keys section", Run: sampleCommand},
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: loadgen COMMAND [flags] [args]

  run WORKLOAD                                   produce a workload's traffic against a Kafka cluster
  partition --partitioner NAME --partitions N KEY...   print each key and its partition
  plan WORKLOAD                                  predicted share of traffic per partition; keys moved by partition growth
  sample --bootstrap HOST:PORT --topic T         a topic's keys as a workload's keys section (read-only, no group)
  version                                        the versions of chaosbench, Go, the client libraries and Kafka (also --version)

Run `+"`loadgen COMMAND -h`"+` for a command's flags.
`)
}

func main() {
	// The producer allocates a little per record and has memory to spare:
	// fewer collections leave more CPU to the client and the broker.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	cli.Dispatch("loadgen", os.Args, commands, usage, func() {
		version.Print(os.Stdout, "loadgen", [2]string{"kafka", cluster.KafkaVersion + " (local provider; docker provider: image " + cluster.DockerImage + ")"})
	})
}
