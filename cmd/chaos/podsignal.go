package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/launcher/kube"
)

func init() {
	register("pod-signal", "signal the member process of the Pod it runs in (the Kubernetes launcher execs it for kill and pause)", runPodSignal)
}

const podSignalUsage = `usage: chaos pod-signal KILL|TERM|STOP|CONT|INT

Sends the signal to every chaos member process of the Pod it runs in,
seen through the Pod's shared process namespace (the Java member too).
The Kubernetes launcher execs it into a member's container for a kill
(KILL) and a pause (STOP, then CONT): a member is not PID 1 of its Pod,
so the signal reaches it. Exit status 1 when no member was found.
`

// runPodSignal is `chaos pod-signal SIGNAL`, run inside a member's Pod.
func runPodSignal(args []string) error {
	fs := cli.NewFlagSet("chaos pod-signal", os.Stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), podSignalUsage) }
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.Usagef("expected one signal, got %d arguments", fs.NArg())
	}
	sig, err := kube.ParseSignal(fs.Arg(0))
	if err != nil {
		return cli.Usage(err)
	}
	pids, err := kube.SignalMembers("/proc", os.Getpid(), sig, func(pid int, s syscall.Signal) error { return syscall.Kill(pid, s) })
	for _, pid := range pids {
		fmt.Printf("%s sent to pid %d\n", fs.Arg(0), pid)
	}
	return err
}
