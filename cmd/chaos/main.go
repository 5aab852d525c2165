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
	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/version"
)

type command struct {
	summary string
	run     func(args []string) error
}

// commands holds the subcommands; each registers itself from its own file's
// init function.
var commands = map[string]command{}

func register(name, summary string, run func(args []string) error) {
	commands[name] = command{summary, run}
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
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "version", "print the versions of chaosbench, Go, the client libraries and Kafka (also --version)")
	fmt.Fprintln(w, "\nRun `chaos COMMAND -h` for a command's flags.")
}

// printVersion prints chaosbench's version and those of what it runs.
func printVersion() {
	version.Print(os.Stdout, "chaos", [2]string{"kafka", cluster.KafkaVersion + " (local provider; docker provider: image " + cluster.DockerImage + ")"})
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
		printVersion()
		return
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "chaos: unknown command %s\n\n", clip.Quote(name))
		usage(os.Stderr)
		os.Exit(cli.ExitUsage)
	}
	cli.Exit("chaos "+name, c.run(os.Args[2:]))
}
