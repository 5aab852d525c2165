// Package launcher starts the processes of a run (members, producers) and
// signals them. The local launcher runs child processes on this host;
// package kube implements the interface with one Kubernetes Pod per
// incarnation (docs/kubernetes.md).
package launcher

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/chaosbench/chaosbench/internal/procutil"
)

// Spec describes a process to start.
type Spec struct {
	Name string   // the process's name in the run (m1, producer-0)
	Inc  int      // its incarnation
	Cell string   // the cell it belongs to (its folder in the run), for a launcher that labels what it starts
	Args []string // arguments to the harness binary (e.g. "member", "--name", ...)
	// Log receives the process's standard output and error.
	Log string
	// Control opens a pipe to the process's standard input for commands.
	Control bool
	// Env holds environment entries (KEY=value) added to the harness's
	// own: what must not be on a command line, such as a member's secret
	// client properties.
	Env []string
}

// Process is a started process.
type Process interface {
	Name() string
	Inc() int
	PID() int
	// Signal sends sig: SIGKILL (crash), SIGTERM (graceful close), SIGSTOP
	// and SIGCONT (pause).
	Signal(sig syscall.Signal) error
	// Control sends a command line to the process (Spec.Control).
	Control(cmd string) error
	// Done is closed when the process has exited.
	Done() <-chan struct{}
	// Exit returns the exit status (-1 when ended by a signal) and the
	// signal's name; valid after Done.
	Exit() (status int, signal string)
}

// Placed is a Process that runs on another host than the driver's: Host
// names it (a Kubernetes node), for the driver's record of the start.
type Placed interface {
	Host() string
}

// Launcher starts processes.
type Launcher interface {
	Start(ctx context.Context, s Spec) (Process, error)
}

// Local starts child processes of this host running Binary (the chaos
// binary). Children never outlive the harness (procutil).
type Local struct {
	Binary string
}

// Start implements Launcher.
func (l Local) Start(_ context.Context, s Spec) (Process, error) {
	logf, err := os.OpenFile(s.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child keeps its own descriptor
	cmd := exec.Command(l.Binary, s.Args...)
	if len(s.Env) > 0 {
		cmd.Env = append(os.Environ(), s.Env...)
	}
	cmd.Stdout = logf
	cmd.Stderr = logf
	var stdin io.WriteCloser
	if s.Control {
		if stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	p, err := procutil.Start(cmd, false)
	if err != nil {
		return nil, fmt.Errorf("start %s.%d: %w", s.Name, s.Inc, err)
	}
	return &localProcess{spec: s, p: p, stdin: stdin}, nil
}

type localProcess struct {
	spec  Spec
	p     *procutil.Proc
	mu    sync.Mutex
	stdin io.WriteCloser
}

func (p *localProcess) Name() string          { return p.spec.Name }
func (p *localProcess) Inc() int              { return p.spec.Inc }
func (p *localProcess) PID() int              { return p.p.PID() }
func (p *localProcess) Done() <-chan struct{} { return p.p.Done() }

func (p *localProcess) Signal(sig syscall.Signal) error { return p.p.Signal(sig) }

func (p *localProcess) Control(cmd string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdin == nil {
		return fmt.Errorf("%s.%d: no control channel", p.spec.Name, p.spec.Inc)
	}
	_, err := io.WriteString(p.stdin, cmd+"\n")
	return err
}

func (p *localProcess) Exit() (int, string) {
	st := p.p.State()
	if st == nil {
		return 0, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, SignalName(ws.Signal())
	}
	return st.ExitCode(), ""
}

// SignalName returns "SIGKILL" and the like.
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSTOP:
		return "SIGSTOP"
	case syscall.SIGCONT:
		return "SIGCONT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return fmt.Sprintf("signal %d", int(s))
}

// Stop asks p to close gracefully (SIGTERM) and kills it if it has not
// exited after grace. A paused process is resumed first, or it could not
// act on the SIGTERM.
func Stop(p Process, grace time.Duration) {
	_ = p.Signal(syscall.SIGCONT)
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.Done():
	case <-time.After(grace):
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
	}
}
