package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/chaosbench/chaosbench/internal/control"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/launcher"
)

// fleet is the consumer group of one cell: member processes by name, with
// their incarnations. Every start and exit is recorded in the driver's
// history.
type fleet struct {
	launch   launcher.Launcher
	hist     *history.Writer
	logDir   string
	cell     string // the cell's folder in the run, for a launcher's labels
	baseArgs func(name string, inc int) []string
	env      []string // every member's extra environment (its secret properties)
	logf     func(format string, args ...any)
	// ctl is the network control channel's endpoint; nil: each member's
	// standard input.
	ctl *control.Server

	mu      sync.Mutex
	members map[string]*memberProc
	wg      sync.WaitGroup
}

type memberProc struct {
	name    string
	inc     int // current (or last) incarnation
	proc    launcher.Process
	paused  bool
	stopped bool // the driver stopped or killed it on purpose
}

func newFleet(l launcher.Launcher, hist *history.Writer, logDir string, args func(string, int) []string, env []string, logf func(string, ...any)) *fleet {
	return &fleet{launch: l, hist: hist, logDir: logDir, baseArgs: args, env: env, logf: logf, members: map[string]*memberProc{}}
}

// start starts a member's next incarnation (its first if new).
func (f *fleet) start(ctx context.Context, name string) error {
	f.mu.Lock()
	m := f.members[name]
	inc := 0
	if m != nil {
		if m.proc != nil && !exited(m.proc) {
			f.mu.Unlock()
			return fmt.Errorf("member %s is running", name)
		}
		inc = m.inc + 1
	} else {
		m = &memberProc{name: name}
		f.members[name] = m
	}
	f.mu.Unlock()
	p, err := f.launch.Start(ctx, launcher.Spec{
		Name: name, Inc: inc, Cell: f.cell, Args: f.baseArgs(name, inc), Env: f.env, Control: f.ctl == nil,
		Log: filepath.Join(f.logDir, fmt.Sprintf("%s.%d.log", name, inc)),
	})
	if err != nil {
		return err
	}
	f.mu.Lock()
	m.inc, m.proc, m.paused, m.stopped = inc, p, false, false
	f.mu.Unlock()
	host, _ := os.Hostname()
	if pl, ok := p.(launcher.Placed); ok {
		host = pl.Host()
	}
	f.record(&history.Event{Kind: history.Member, State: history.StateSpawned, Target: name, TargetInc: inc, PID: p.PID(), Host: host})
	f.wg.Add(1)
	go f.watch(m, p)
	return nil
}

// watch records the exit of one incarnation.
func (f *fleet) watch(m *memberProc, p launcher.Process) {
	defer f.wg.Done()
	<-p.Done()
	status, sig := p.Exit()
	f.mu.Lock()
	expected := m.stopped
	f.mu.Unlock()
	f.record(&history.Event{Kind: history.Member, State: history.StateExited, Target: p.Name(), TargetInc: p.Inc(), ExitStatus: status, Signal: sig})
	if !expected {
		f.logf("member %s.%d exited on its own (status %d %s): see %s", p.Name(), p.Inc(), status, sig,
			filepath.Join(f.logDir, fmt.Sprintf("%s.%d.log", p.Name(), p.Inc())))
	}
}

func (f *fleet) record(e *history.Event) {
	if err := f.hist.Append(e); err == nil {
		err = f.hist.Flush()
	}
}

func exited(p launcher.Process) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

func (f *fleet) get(name string) (*memberProc, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.members[name]
	if m == nil || m.proc == nil {
		return nil, fmt.Errorf("no member %s", name)
	}
	return m, nil
}

// running returns a member's current process, if it is running.
func (f *fleet) running(name string) (*memberProc, launcher.Process, error) {
	m, err := f.get(name)
	if err != nil {
		return nil, nil, err
	}
	f.mu.Lock()
	p := m.proc
	f.mu.Unlock()
	if exited(p) {
		return m, p, fmt.Errorf("member %s.%d is not running", name, p.Inc())
	}
	return m, p, nil
}

// Acting on a member. Each of signal, kill, stop and control first finds
// the member's running process, then calls before (when not nil) with
// the incarnation and pid it is about to act on, then acts: the driver
// records a chaos step in before, so that the step is in the history
// ahead of everything it causes (the member's exit, its leave, the
// rebalance). A member that is not running is an error before anything
// is recorded; an act that fails once recorded returns its error, and
// the caller records the failure after the intent.

// before is what the caller does between the checks and the act.
type before func(inc, pid int)

func (b before) call(p launcher.Process) {
	if b != nil {
		b(p.Inc(), p.PID())
	}
}

// signal sends sig to a running member and returns the incarnation and pid
// it reached.
func (f *fleet) signal(name string, sig syscall.Signal, b before) (inc, pid int, err error) {
	m, p, err := f.running(name)
	if err != nil {
		if p != nil {
			return p.Inc(), p.PID(), err
		}
		return 0, 0, err
	}
	f.mu.Lock()
	if sig == syscall.SIGKILL || sig == syscall.SIGTERM {
		m.stopped = true
	}
	switch sig {
	case syscall.SIGSTOP:
		m.paused = true
	case syscall.SIGCONT:
		m.paused = false
	}
	f.mu.Unlock()
	b.call(p)
	return p.Inc(), p.PID(), p.Signal(sig)
}

// kill crashes a member: SIGKILL, no LeaveGroup. The signal is sent when
// it returns; done is closed when the process is gone.
func (f *fleet) kill(name string, b before) (inc, pid int, done <-chan struct{}, err error) {
	m, p, err := f.running(name)
	if err != nil {
		return f.notRunning(p, err)
	}
	f.mu.Lock()
	m.stopped = true
	f.mu.Unlock()
	b.call(p)
	if err := p.Signal(syscall.SIGKILL); err != nil {
		return p.Inc(), p.PID(), nil, err
	}
	return p.Inc(), p.PID(), p.Done(), nil
}

// stop closes a member gracefully (SIGTERM: final commit, LeaveGroup) and
// waits for it in the background, killing it after grace. A paused member
// is resumed first. The signal is sent when it returns; done is closed
// when the process is gone.
func (f *fleet) stop(name string, grace time.Duration, b before) (inc, pid int, done <-chan struct{}, err error) {
	m, p, err := f.running(name)
	if err != nil {
		return f.notRunning(p, err)
	}
	f.mu.Lock()
	m.stopped = true
	f.mu.Unlock()
	b.call(p)
	_ = p.Signal(syscall.SIGCONT)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		return p.Inc(), p.PID(), nil, err
	}
	go func() {
		select {
		case <-p.Done():
		case <-time.After(grace):
			f.logf("member %s.%d still running %s after SIGTERM: killing it", name, p.Inc(), grace)
			_ = p.Signal(syscall.SIGKILL)
		}
	}()
	return p.Inc(), p.PID(), p.Done(), nil
}

func (f *fleet) notRunning(p launcher.Process, err error) (inc, pid int, done <-chan struct{}, _ error) {
	if p != nil {
		return p.Inc(), p.PID(), nil, err
	}
	return 0, 0, nil, err
}

// connectWait bounds how long a command waits for a member incarnation
// to connect to the network control channel: a JVM member takes seconds
// from its start to its connection on a busy host. The standard input's
// pipe holds a command for a member that has not read it yet.
const connectWait = 30 * time.Second

// control sends a command line to a running member: on its standard
// input, or through the network control channel, which returns once the
// member has acknowledged it (and its refusal as an error).
func (f *fleet) control(name, cmd string, b before) (inc, pid int, err error) {
	_, p, err := f.running(name)
	if err != nil {
		if p != nil {
			return p.Inc(), p.PID(), err
		}
		return 0, 0, err
	}
	b.call(p)
	if f.ctl == nil {
		return p.Inc(), p.PID(), p.Control(cmd)
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectWait)
	defer cancel()
	// A member that exits is not waited for.
	go func() {
		select {
		case <-p.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	return p.Inc(), p.PID(), f.ctl.Send(ctx, name, p.Inc(), cmd)
}

// alive returns the names of running members, in number order.
func (f *fleet) alive() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n, m := range f.members {
		if m.proc != nil && !exited(m.proc) {
			out = append(out, n)
		}
	}
	sortMembers(out)
	return out
}

func (f *fleet) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n := range f.members {
		out = append(out, n)
	}
	sortMembers(out)
	return out
}

// sortMembers sorts m1, m2, ..., m10 by number.
func sortMembers(names []string) {
	sort.Slice(names, func(i, j int) bool {
		a, errA := strconv.Atoi(names[i][1:])
		b, errB := strconv.Atoi(names[j][1:])
		if errA == nil && errB == nil && a != b {
			return a < b
		}
		return names[i] < names[j]
	})
}

// stopAll closes every running member gracefully (resuming paused ones
// first), in parallel, and waits for every exit to be recorded.
func (f *fleet) stopAll(grace time.Duration) {
	var wg sync.WaitGroup
	for _, n := range f.alive() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, done, err := f.stop(n, grace, nil); err == nil {
				<-done
			}
		}()
	}
	wg.Wait()
	f.wg.Wait()
}

// killAll kills every running member (an interrupted run).
func (f *fleet) killAll() {
	for _, n := range f.alive() {
		if _, _, done, err := f.kill(n, nil); err == nil {
			<-done
		}
	}
	f.wg.Wait()
}
