package main

import (
	"context"
	"fmt"
	"os"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/control"
	"github.com/chaosbench/chaosbench/internal/member"
)

func init() {
	register("member", "run one consumer-group member process (the chaos driver starts these)", runMember)
}

func runMember(args []string) error {
	fs := cli.NewFlagSet("chaos member", os.Stderr)
	c := member.Defaults()
	c.Flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: chaos member [flags]

One consumer-group member process, as the chaos driver starts it
(docs/members.md): it joins the group, processes records at the given
cost, commits per the policy and records what it sees in its history.
SIGTERM closes it gracefully. The driver's commands come on its standard
input with --control-stdin, or from the driver's control endpoint with
--control-addr, to which it proves it holds the run's token, given in the
environment variable %s. Secret client properties come in the
environment variable %s (a JSON object), not with -X.

Flags:
`, control.TokenEnv, member.SecretsEnv)
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %v", fs.Args())
	}
	if err := c.ReadEnv(); err != nil {
		return cli.Usage(err)
	}
	// SIGTERM (and Ctrl-C) is a graceful close; SIGKILL is a crash.
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	var in *os.File
	if c.Control {
		in = os.Stdin
	}
	err := member.Run(ctx, c, in, os.Stderr)
	if member.IsConfigError(err) {
		return cli.Usage(err) // exit 2: nothing was started
	}
	return err
}
