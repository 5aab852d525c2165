package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/control"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/launcher"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// The coordinator's members become an ownership of the running members'
// current incarnations: a killed member still in the group (its session
// not yet timed out), an earlier incarnation of a restarted member and a
// client that is no member of the run own nothing.
func TestOwnershipOfCoordinator(t *testing.T) {
	members := []cluster.GroupMember{
		{ClientID: "m1.0", Partitions: []int32{0, 1}},
		{ClientID: "m2.0", Partitions: []int32{2}}, // m2 was restarted: m2.1 is current
		{ClientID: "m2.1", Partitions: []int32{3}},
		{ClientID: "m3.0", Partitions: []int32{4}}, // killed
		{ClientID: "other", Partitions: []int32{5}},
		{ClientID: "m4.0"}, // joined, nothing yet
	}
	incs := map[string]int{"m1": 0, "m2": 1, "m3": 0, "m4": 0}
	o := ownershipOf(members, []string{"m1", "m2", "m4"}, func(n string) int { return incs[n] })
	if got := fmt.Sprint(o.owner); got != "map[0:m1 1:m1 3:m2]" {
		t.Errorf("owners %s", got)
	}
	if got := fmt.Sprint(o.counts); got != "map[m1:2 m2:1]" {
		t.Errorf("counts %s", got)
	}
	if got := fmt.Sprint(o.members); got != "map[m1:true m2:true m4:true]" {
		t.Errorf("members %s", got)
	}
	// m4 owns nothing: with six partitions for three members, not formed.
	if o.formed(4, []string{"m1", "m2", "m4"}) {
		t.Error("formed with an idle member and a partition unowned")
	}
}

// The coordinator's group has formed when it is Stable with every running
// member, every partition owned, and none idle while there are enough
// partitions; with more members than partitions, some own nothing.
func TestFormedStable(t *testing.T) {
	incs := func(string) int { return 0 }
	three := []string{"m1", "m2", "m3"}
	all := []cluster.GroupMember{{ClientID: "m1.0", Partitions: []int32{0, 1}}, {ClientID: "m2.0", Partitions: []int32{2, 3}}, {ClientID: "m3.0", Partitions: []int32{4, 5}}}
	for _, tc := range []struct {
		name       string
		state      string
		members    []cluster.GroupMember
		partitions int
		alive      []string
		want       bool
	}{
		{"stable", "Stable", all, 6, three, true},
		{"stable, the consumer protocol's spelling", "STABLE", all, 6, three, true},
		{"rebalancing", "PreparingRebalance", all, 6, three, false},
		{"a partition unowned", "Stable", all, 7, three, false},
		{"a member idle", "Stable", []cluster.GroupMember{{ClientID: "m1.0", Partitions: []int32{0, 1, 2}}, {ClientID: "m2.0", Partitions: []int32{3, 4, 5}}, {ClientID: "m3.0"}}, 6, three, false},
		{"a member not joined", "Stable", all[:2], 4, three, false},
		{"more members than partitions", "Stable", []cluster.GroupMember{{ClientID: "m1.0", Partitions: []int32{0}}, {ClientID: "m2.0", Partitions: []int32{1}}, {ClientID: "m3.0"}}, 2, three, true},
		{"a dead member's partitions", "Stable", all, 6, []string{"m1", "m2"}, false},
	} {
		o := ownershipOf(tc.members, tc.alive, incs)
		if got := o.formedStable(tc.state, tc.partitions, tc.alive); got != tc.want {
			t.Errorf("%s: formed %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A run's control channel is stdin or network, nothing else, and says so.
func TestCheckControl(t *testing.T) {
	for _, ch := range []string{"", ControlStdin, ControlNetwork} {
		if err := CheckControl(ch); err != nil {
			t.Errorf("%q: %v", ch, err)
		}
	}
	err := CheckControl("pipe")
	if err == nil || !strings.Contains(err.Error(), `control channel "pipe": expected stdin`) {
		t.Errorf("pipe: %v", err)
	}
	o := Options{Control: "ssh"}
	if err := o.setDefaults(); err == nil {
		t.Error("Options.Control ssh accepted")
	}
}

// A slow step through the network control channel: recorded before it
// acts, acknowledged by the member (the command reached its incarnation,
// once), and a command the member refuses is the step's error, recorded
// after its intent, as an act that fails.
func TestSlowOverTheNetwork(t *testing.T) {
	dir := t.TempDir()
	hist, err := history.Create(dir, "chaos", 0)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := control.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := control.Serve("127.0.0.1:0", tok, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l := &netLauncher{addr: srv.Addr(), token: tok, took: map[string][]string{}}
	c := &cellRun{opts: &Options{Out: io.Discard}, hist: hist}
	c.fleet = newFleet(l, hist, dir, func(string, int) []string { return nil }, nil, func(string, ...any) {})
	c.fleet.ctl = srv
	ctx := context.Background()
	if err := c.fleet.start(ctx, "m1"); err != nil {
		t.Fatal(err)
	}
	if l.specs[0].Control {
		t.Error("the member was given a stdin pipe besides the network channel")
	}
	var tails sync.WaitGroup
	c.memberAction(ctx, workloads.PlannedStep{Step: 1, Action: vocab.ActionSlow, Target: "m1", Duration: 1500 * time.Millisecond}, "m1", map[string]any{}, &tails)
	// A restart: the next incarnation takes the next command, not the
	// last one.
	c.memberAction(ctx, workloads.PlannedStep{Step: 2, Action: vocab.ActionRestart, Target: "m1"}, "m1", map[string]any{}, &tails)
	c.memberAction(ctx, workloads.PlannedStep{Step: 3, Action: vocab.ActionSlow, Target: "m1", Duration: 40 * time.Millisecond}, "m1", map[string]any{}, &tails)
	l.mu.Lock()
	l.refuse = true
	l.mu.Unlock()
	c.memberAction(ctx, workloads.PlannedStep{Step: 4, Action: vocab.ActionSlow, Target: "m1", Duration: time.Second}, "m1", map[string]any{}, &tails)
	tails.Wait()
	c.fleet.killAll()
	hist.Close()
	var got []string
	for _, e := range readFile(t, hist.Path()) {
		if e.Kind == history.Chaos {
			got = append(got, fmt.Sprintf("%s %s.%d err=%s", e.Action, e.Target, e.TargetInc, e.Err))
		}
	}
	want := []string{
		"slow m1.0 err=",
		"restart m1.0 err=",
		"slow m1.1 err=",
		"slow m1.1 err=",
		`slow m1.1 err=m1.1 refused "slow 1s": not now`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("chaos events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if g := fmt.Sprint(l.took); g != "map[m1.0:[slow 1.5s] m1.1:[slow 40ms]]" {
		t.Errorf("the members took %s", g)
	}
}

// netLauncher starts fake members that take their commands from the
// driver's control endpoint, as `chaos member --control-addr` does, until
// they are signalled to end.
type netLauncher struct {
	addr, token string

	mu     sync.Mutex
	specs  []launcher.Spec
	took   map[string][]string
	refuse bool
}

func (l *netLauncher) Start(_ context.Context, s launcher.Spec) (launcher.Process, error) {
	l.mu.Lock()
	l.specs = append(l.specs, s)
	l.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	p := &netProcess{spec: s, cancel: cancel, done: make(chan struct{})}
	who := fmt.Sprintf("%s.%d", s.Name, s.Inc)
	go func() {
		defer close(p.done)
		control.Run(ctx, l.addr, l.token, s.Name, s.Inc, func(cmd string) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.refuse {
				return fmt.Errorf("not now")
			}
			l.took[who] = append(l.took[who], cmd)
			return nil
		}, func(string, ...any) {})
	}()
	return p, nil
}

type netProcess struct {
	spec   launcher.Spec
	cancel func()
	done   chan struct{}
}

func (p *netProcess) Name() string          { return p.spec.Name }
func (p *netProcess) Inc() int              { return p.spec.Inc }
func (p *netProcess) PID() int              { return 1000 + p.spec.Inc }
func (p *netProcess) Done() <-chan struct{} { return p.done }
func (p *netProcess) Exit() (int, string)   { return 0, "" }
func (p *netProcess) Control(string) error  { return fmt.Errorf("no stdin pipe") }

func (p *netProcess) Signal(sig syscall.Signal) error {
	if sig == syscall.SIGKILL || sig == syscall.SIGTERM {
		p.cancel()
	}
	return nil
}
