package member

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/control"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The Java member speaks the network control channel as the Go endpoint
// does (Control.java against internal/control): it proves the token,
// takes a command with its own handler and acknowledges it, refuses one
// it does not know with the reason the Go members give; with a token
// that is not the run's it refuses the endpoint and gives up. No broker:
// the program's --control mode runs the channel alone.
func TestJavaControlChannel(t *testing.T) {
	j := requireJava(t)
	tok, err := control.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := control.Serve("127.0.0.1:0", tok, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := validConfig()
	cfg.Client, cfg.Strategy = vocab.ClientJava, vocab.CooperativeSticky
	cfg.Name, cfg.Inc = "m7", 2
	cfg.ControlAddr, cfg.ControlToken = srv.Addr(), tok

	start := func(cfg Config) (*exec.Cmd, *lines, *strings.Builder) {
		argv := j.Command(append([]string{"--control"}, cfg.Args()...)...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(javaEnv(), cfg.Env()...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		l := &lines{}
		go l.read(out)
		return cmd, l, &stderr
	}
	cmd, out, _ := start(cfg)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a JVM's start, on a busy host
	defer cancel()
	if err := srv.Send(ctx, "m7", 2, "slow 250ms"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Send(ctx, "m7", 2, "slow 1m30s"); err != nil {
		t.Fatal(err)
	}
	err = srv.Send(ctx, "m7", 2, "jump 3")
	if err == nil || !strings.Contains(err.Error(), `m7.2 refused "jump 3": unknown command "jump 3"`) {
		t.Errorf("an unknown command: %v", err)
	}
	err = srv.Send(ctx, "m7", 2, "slow -1s")
	if err == nil || !strings.Contains(err.Error(), `"slow -1s": expected a positive duration`) {
		t.Errorf("a negative stall: %v", err)
	}
	// The commands taken, each with the stall it set (the program's
	// output comes through a pipe of its own, maybe after the ACK).
	want := "took slow 250ms stall 250000000\ntook slow 1m30s stall 90000000000\n"
	for deadline := time.Now().Add(5 * time.Second); out.String() != want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := out.String(); got != want {
		t.Errorf("the Java member took:\n%s\nwant:\n%s", got, want)
	}

	// A member holding another token refuses the endpoint and ends.
	other := cfg
	other.Name = "m8"
	if other.ControlToken, err = control.NewToken(); err != nil {
		t.Fatal(err)
	}
	bad, _, stderr := start(other)
	waited := make(chan error, 1)
	go func() { waited <- bad.Wait() }()
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		bad.Process.Kill()
		t.Fatal("a Java member with the wrong token kept trying")
	}
	if !strings.Contains(stderr.String(), "could not prove that it holds the run's token") {
		t.Errorf("the refused member's log:\n%s", stderr)
	}
	if srv.Connected("m8", 2) {
		t.Error("a member with the wrong token connected")
	}
}

// lines collects a reader's lines.
type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) read(r interface{ Read([]byte) (int, error) }) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.b.WriteString(sc.Text() + "\n")
		l.mu.Unlock()
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
