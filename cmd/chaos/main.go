// Command chaos runs consumer groups under chaos against a real Kafka
// cluster and analyses what happened.
//
//	chaos cluster up|down|status|fetch   a local Kafka cluster
//
// Run `chaos help` for every subcommand.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/version"
)

// commands holds the subcommands; each registers itself from its own file's
// init function.
var commands = map[string]cli.Command{}

func register(name, summary string, run func(args []string) error) {
	commands[name] = cli.Command{Summary: summary, Run: run}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: chaos COMMAND [flags] [args]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "version", "print the versions of chaosbench, Go, the client libraries and Kafka (also --version)")
	fmt.Fprintln(w, "\nRun `chaos COMMAND -h` for a command's flags.")
}

// printVersion prints chaosbench's version and those of what it runs.
func printVersion() {
	version.Print(os.Stdout, "chaos", [2]string{"kafka", cluster.KafkaVersion + " (local provider; docker provider: image " + cluster.DockerImage + ")"})
}

func main() {
	cli.Dispatch("chaos", os.Args, commands, usage, printVersion)
}
