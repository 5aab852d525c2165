package main

import (
	"context"
	"os"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/member"
)

func init() {
	register("member", "run one consumer-group member process (the chaos driver starts these)", runMember)
}

func runMember(args []string) error {
	fs := cli.NewFlagSet("chaos member", os.Stderr)
	c := member.Defaults()
	c.Flags(fs)
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
