// Package procutil starts the child processes chaosbench is made of (Kafka
// brokers, consumer-group members, producers) so that none of them outlives
// the harness, and signals them the way the chaos driver needs: SIGKILL for
// a crash, SIGTERM for a graceful close, SIGSTOP/SIGCONT for a pause.
//
// Each child runs in a process group of its own, so a signal reaches it and
// anything it started, and never the harness. A child also gets a
// parent-death signal (SIGKILL), so that even a SIGKILL of the harness,
// which runs no cleanup code, takes its children with it.
package procutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ChildAttr returns the process attributes of a child: its own process
// group and, unless detached, SIGKILL when its parent dies. A detached child
// gets a session of its own instead and outlives the harness (`chaos cluster
// up` uses that for brokers that must stay up after the command returns).
func ChildAttr(detached bool) *syscall.SysProcAttr {
	if detached {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Linux sends the parent-death signal when the thread that forked the child
// exits, not the process. Go may retire threads, so every child is forked
// from one goroutine locked to its thread for the life of the program.
var (
	spawnOnce sync.Once
	spawnReq  chan spawnRequest
)

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func spawner() {
	runtime.LockOSThread() // never unlocked: this thread lives as long as the process
	for req := range spawnReq {
		req.done <- req.cmd.Start()
	}
}

// Proc is a started child process.
type Proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
}

// Start starts cmd as a child (see ChildAttr) and reaps it in the
// background.
func Start(cmd *exec.Cmd, detached bool) (*Proc, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = ChildAttr(detached)
	}
	spawnOnce.Do(func() {
		spawnReq = make(chan spawnRequest)
		go spawner()
	})
	req := spawnRequest{cmd: cmd, done: make(chan error, 1)}
	spawnReq <- req
	if err := <-req.done; err != nil {
		return nil, err
	}
	p := &Proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// PID returns the child's process id (also its process group id).
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Done is closed when the child has exited and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether the child has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitErr returns the child's exit error (nil for status 0); only
// meaningful after Done.
func (p *Proc) ExitErr() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}

// State returns the exit state, or nil while the child runs.
func (p *Proc) State() *os.ProcessState {
	if !p.Exited() {
		return nil
	}
	return p.cmd.ProcessState
}

// Signal sends sig to the child's process group.
func (p *Proc) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return os.ErrProcessDone
	}
	return syscall.Kill(-p.PID(), sig)
}

// SignalWait sends sig to the child's process group and waits up to wait
// for it to exit. A child that is already gone is not an error.
func (p *Proc) SignalWait(sig syscall.Signal, wait time.Duration) error {
	if err := p.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	if sig == syscall.SIGSTOP || sig == syscall.SIGCONT {
		return nil
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(wait):
		return fmt.Errorf("pid %d still running %s after %s", p.PID(), wait, sig)
	}
}

// Alive reports whether pid is a live (not zombie) process whose command
// line contains marker: a pid recorded earlier may since have been reused
// by an unrelated process.
func Alive(pid int, marker string) bool {
	if pid <= 0 {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	return true
}

// SignalGroupWait signals the process group led by pid, a process this
// program did not start (a detached broker found through a state file), and
// waits up to wait for it to be gone. marker guards against pid reuse.
func SignalGroupWait(pid int, marker string, sig syscall.Signal, wait time.Duration) error {
	if !Alive(pid, marker) {
		return nil
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	deadline := time.Now().Add(wait)
	for Alive(pid, marker) {
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d still running %s after %s", pid, wait, sig)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// CombinedOutput runs cmd as a child (see Start) and returns its combined
// stdout and stderr. If ctx ends first, the child's process group is killed.
func CombinedOutput(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	p, err := Start(cmd, false)
	if err != nil {
		return nil, err
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		_ = p.SignalWait(syscall.SIGKILL, 10*time.Second)
	}
	return out.Bytes(), p.ExitErr()
}
