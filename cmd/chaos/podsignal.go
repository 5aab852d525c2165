package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/launcher/kube"
)

func init() {
	register("pod-signal", "signal the member process of this Pod (the Kubernetes launcher execs it for kill and pause)", runPodSignal)
}

// runPodSignal is `chaos pod-signal SIGNAL`: run inside a member's Pod by
// the Kubernetes launcher, it sends SIGNAL to the Pod's `chaos member`
// process, which it sees through the Pod's shared process namespace.
func runPodSignal(args []string) error {
	if len(args) != 1 {
		return cli.Usagef("usage: chaos pod-signal KILL|TERM|STOP|CONT|INT")
	}
	sig, err := kube.ParseSignal(args[0])
	if err != nil {
		return cli.Usage(err)
	}
	pids, err := kube.SignalMembers("/proc", os.Getpid(), sig, func(pid int, s syscall.Signal) error { return syscall.Kill(pid, s) })
	for _, pid := range pids {
		fmt.Printf("%s sent to pid %d\n", args[0], pid)
	}
	return err
}
