package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/launcher"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// TestStepRecordedBeforeItsConsequences forces the race of a kill: the
// fake process dies the moment it is signalled, and its signal does not
// return until the fleet has recorded the exit. The step's chaos line
// must still come first in the driver's history, with a time no later
// than the exit's: a step is recorded before it acts. The same holds for
// a graceful stop, a pause and its resume, and a slow step.
func TestStepRecordedBeforeItsConsequences(t *testing.T) {
	for _, action := range []string{vocab.ActionKill, vocab.ActionStop, vocab.ActionPause, vocab.ActionSlow} {
		t.Run(action, func(t *testing.T) {
			dir := t.TempDir()
			hist, err := history.Create(dir, "chaos", 0)
			if err != nil {
				t.Fatal(err)
			}
			l := &dyingLauncher{hist: hist, path: hist.Path()}
			c := &cellRun{opts: &Options{Out: io.Discard}, hist: hist}
			c.fleet = newFleet(l, hist, dir, func(string, int) []string { return nil }, nil, func(string, ...any) {})
			if err := c.fleet.start(context.Background(), "m1"); err != nil {
				t.Fatal(err)
			}
			s := workloads.PlannedStep{Step: 1, Action: action, Target: "m1", Duration: 10 * time.Millisecond}
			var tails sync.WaitGroup
			c.memberAction(context.Background(), s, "m1", map[string]any{}, &tails)
			tails.Wait()
			c.fleet.killAll()
			if err := hist.Close(); err != nil {
				t.Fatal(err)
			}
			evs := readFile(t, hist.Path())
			var step, consequence int = -1, -1
			for i, e := range evs {
				switch {
				case e.Kind == history.Chaos && e.Action == action && step < 0:
					step = i
					if e.Err != "" {
						t.Fatalf("step recorded with an error: %s", e.Err)
					}
				case l.consequence(e) && consequence < 0:
					consequence = i
				}
			}
			if step < 0 || consequence < 0 {
				t.Fatalf("want the step and its consequence in the history, got %+v", evs)
			}
			if step > consequence || evs[step].T > evs[consequence].T {
				t.Errorf("the %s step (line %d, t=%d) comes after its consequence (line %d, t=%d)",
					action, step+1, evs[step].T, consequence+1, evs[consequence].T)
			}
		})
	}
}

// TestStepFailureAfterIntent: an act that fails once recorded is followed
// by a second chaos event of the same step, action and target, with the
// error; a member that is not running is refused before anything acts,
// and recorded once, with the error.
func TestStepFailureAfterIntent(t *testing.T) {
	dir := t.TempDir()
	hist, err := history.Create(dir, "chaos", 0)
	if err != nil {
		t.Fatal(err)
	}
	l := &dyingLauncher{hist: hist, path: hist.Path(), refuse: true}
	c := &cellRun{opts: &Options{Out: io.Discard}, hist: hist}
	c.fleet = newFleet(l, hist, dir, func(string, int) []string { return nil }, nil, func(string, ...any) {})
	if err := c.fleet.start(context.Background(), "m1"); err != nil {
		t.Fatal(err)
	}
	var tails sync.WaitGroup
	c.memberAction(context.Background(), workloads.PlannedStep{Step: 1, Action: vocab.ActionSlow, Target: "m1", Duration: time.Second}, "m1", map[string]any{}, &tails)
	l.refuse = false
	c.memberAction(context.Background(), workloads.PlannedStep{Step: 2, Action: vocab.ActionKill, Target: "m1"}, "m1", map[string]any{}, &tails)
	c.memberAction(context.Background(), workloads.PlannedStep{Step: 3, Action: vocab.ActionKill, Target: "m1"}, "m1", map[string]any{}, &tails)
	tails.Wait()
	hist.Close()
	var got []string
	for _, e := range readFile(t, hist.Path()) {
		if e.Kind == history.Chaos {
			got = append(got, e.Action+" "+e.Target+" err="+e.Err)
		}
	}
	want := []string{
		"slow m1 err=",
		"slow m1 err=refused",
		"kill m1 err=",
		"kill m1 err=member m1.0 is not running",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chaos events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func readFile(t *testing.T, path string) []history.Event {
	t.Helper()
	r, err := history.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var evs []history.Event
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *e)
	}
}

// dyingLauncher starts fake processes that die at once on SIGKILL or
// SIGTERM, and whose signal or control command returns only once the
// driver's history shows what it caused (the exit, or a mark the fake
// writes for a stop or a slow step): the consequence always wins the
// race against whatever is recorded after the act.
type dyingLauncher struct {
	hist   *history.Writer
	path   string
	refuse bool // control commands fail
}

func (l *dyingLauncher) Start(_ context.Context, s launcher.Spec) (launcher.Process, error) {
	return &dyingProc{l: l, name: s.Name, inc: s.Inc, done: make(chan struct{})}, nil
}

// consequence reports whether e is what a fake's act caused.
func (l *dyingLauncher) consequence(e history.Event) bool {
	return (e.Kind == history.Member && e.State == history.StateExited) || (e.Kind == history.Phase && e.Phase == "consequence")
}

type dyingProc struct {
	l    *dyingLauncher
	name string
	inc  int
	once sync.Once
	done chan struct{}
}

func (p *dyingProc) Name() string { return p.name }
func (p *dyingProc) Inc() int     { return p.inc }
func (p *dyingProc) PID() int     { return 4242 }

func (p *dyingProc) Signal(sig syscall.Signal) error {
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM:
		p.once.Do(func() { close(p.done) })
		p.await("exited")
	case syscall.SIGSTOP:
		p.mark()
	}
	return nil
}

func (p *dyingProc) Control(string) error {
	if p.l.refuse {
		return errors.New("refused")
	}
	p.mark()
	return nil
}

// mark records a consequence in the driver's history at once, as the
// fleet records an exit: the step must already be there.
func (p *dyingProc) mark() {
	p.l.hist.Append(&history.Event{Kind: history.Phase, Phase: "consequence"})
	p.l.hist.Flush()
}

// await waits until the history file holds s.
func (p *dyingProc) await(s string) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(p.l.path); strings.Contains(string(b), s) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (p *dyingProc) Done() <-chan struct{} { return p.done }
func (p *dyingProc) Exit() (int, string)   { return -1, "SIGKILL" }

// nodesCluster is a cluster whose brokers the test owns: it records the
// nodes killed and started.
type nodesCluster struct {
	mu            sync.Mutex
	killed, start []int
}

func (n *nodesCluster) Bootstrap() string                          { return "" }
func (n *nodesCluster) Props() kafkaconf.Props                     { return nil }
func (n *nodesCluster) Info(context.Context) (cluster.Info, error) { return cluster.Info{}, nil }
func (n *nodesCluster) Close(context.Context) error                { return nil }
func (n *nodesCluster) NodeIDs() []int                             { return []int{1, 2, 3} }
func (n *nodesCluster) StopNode(context.Context, int) error        { return nil }
func (n *nodesCluster) KillNode(id int) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.killed = append(n.killed, id)
	return nil
}
func (n *nodesCluster) StartNode(_ context.Context, id int) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.start = append(n.start, id)
	return nil
}

// A broker_restart of the broker an earlier step resolved at run time
// (txn-coordinator:<member>) starts the broker that step killed, recorded
// by its node id; one whose kill resolved nothing fails, saying so.
func TestBrokerRestartOfAResolvedKill(t *testing.T) {
	dir := t.TempDir()
	hist, err := history.Create(dir, "chaos", 0)
	if err != nil {
		t.Fatal(err)
	}
	nodes := &nodesCluster{}
	c := &cellRun{opts: &Options{Out: io.Discard}, hist: hist, cluster: nodes, resolvedBrokers: map[int]int{1: 2}}
	var tails sync.WaitGroup
	c.execute(context.Background(), workloads.PlannedStep{Step: 2, Action: vocab.ActionBrokerRestart, KilledBy: 1, Target: "broker-of-step-1"}, &tails)
	c.execute(context.Background(), workloads.PlannedStep{Step: 4, Action: vocab.ActionBrokerRestart, KilledBy: 3, Target: "broker-of-step-3"}, &tails)
	tails.Wait()
	if err := hist.Close(); err != nil {
		t.Fatal(err)
	}
	if len(nodes.start) != 1 || nodes.start[0] != 2 || len(nodes.killed) != 0 {
		t.Errorf("started %v, killed %v: want node 2 started, the broker step 1 killed", nodes.start, nodes.killed)
	}
	// The restart waits on its own (a tail): the two steps' events may
	// come in either order.
	byStep := map[int]history.Event{}
	for _, e := range readFile(t, hist.Path()) {
		byStep[e.Step] = e
	}
	if len(byStep) != 2 {
		t.Fatalf("events %+v", byStep)
	}
	if e := byStep[2]; e.Target != "broker-2" || e.Err != "" || !strings.Contains(e.Params, `"killed_by_step":1`) {
		t.Errorf("restart: %+v", e)
	}
	if e := byStep[4]; e.Target != "broker-of-step-3" || !strings.Contains(e.Err, "step 3 killed no broker") {
		t.Errorf("restart of a kill that resolved nothing: %+v", e)
	}
}
