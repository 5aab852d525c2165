package kube

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ParseSignal reads a signal's name as `chaos pod-signal` takes it: KILL,
// TERM, STOP, CONT, with or without SIG.
func ParseSignal(s string) (syscall.Signal, error) {
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "KILL":
		return syscall.SIGKILL, nil
	case "TERM":
		return syscall.SIGTERM, nil
	case "STOP":
		return syscall.SIGSTOP, nil
	case "CONT":
		return syscall.SIGCONT, nil
	case "INT":
		return syscall.SIGINT, nil
	}
	return 0, fmt.Errorf("signal %q: expected KILL, TERM, STOP, CONT or INT", s)
}

// SignalMembers sends sig to every `chaos member` process it can see in
// procDir (/proc: inside a Pod with a shared process namespace, the
// Pod's processes), other than self, and returns their PIDs. It runs in
// the member's container, exec'd by the launcher: from there the member
// is not PID 1 (the Pod's pause process is), so a SIGKILL or SIGSTOP
// reaches it. A member is `chaos member` (its second argument is
// "member") or the Java member it replaces itself with (a JVM running
// javaMain).
func SignalMembers(procDir string, self int, sig syscall.Signal, kill func(pid int, sig syscall.Signal) error) ([]int, error) {
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return nil, err
	}
	var pids []int
	var errs []error
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid <= 1 {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(procDir, e.Name(), "cmdline"))
		if err != nil {
			continue // gone meanwhile, or not ours to read
		}
		if !isMember(bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})) {
			continue
		}
		if err := kill(pid, sig); err != nil {
			errs = append(errs, fmt.Errorf("pid %d: %w", pid, err))
			continue
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 && len(errs) == 0 {
		return nil, errors.New("no member process in this pod")
	}
	return pids, errors.Join(errs...)
}

// javaMain is the Java member's main class (internal/member's javaMain).
const javaMain = "chaosbench.member.Main"

func isMember(args [][]byte) bool {
	if len(args) >= 2 && string(args[1]) == "member" {
		return true
	}
	for _, a := range args {
		if string(a) == javaMain {
			return true
		}
	}
	return false
}
