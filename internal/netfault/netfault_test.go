package netfault

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// echo starts a line echo server on loopback.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

func path(t *testing.T) *Path {
	t.Helper()
	s := NewSet()
	t.Cleanup(s.Close)
	p, err := s.Add("m1", []Route{{Listen: "127.0.0.1:0", Upstream: echo(t)}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// roundTrip writes a line and waits up to wait for it to come back.
func roundTrip(c net.Conn, r *bufio.Reader, wait time.Duration) (time.Duration, error) {
	start := time.Now()
	_ = c.SetDeadline(start.Add(wait))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return 0, err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	if line != "ping\n" {
		return 0, errors.New("echo: got " + line)
	}
	return time.Since(start), nil
}

func TestDisconnectHoldsThenHealCloses(t *testing.T) {
	p := path(t)
	c, err := net.Dial("tcp", p.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := roundTrip(c, r, 2*time.Second); err != nil {
		t.Fatalf("before the fault: %v", err)
	}
	if err := p.Apply(Fault{Kind: Disconnect}); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(Fault{Kind: Latency, Delay: time.Second}); err == nil {
		t.Fatal("a second fault on a faulted path was accepted")
	}
	_, err = roundTrip(c, r, 300*time.Millisecond)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("through a disconnect: got %v, expected a timeout (nothing passes, the connection stays open)", err)
	}
	p.Heal()
	// The held connection lost bytes: healing closes it.
	if _, err := roundTrip(c, r, 2*time.Second); err == nil {
		t.Fatal("the connection held through a disconnect still carries data after the heal")
	}
	c2, err := net.Dial("tcp", p.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := roundTrip(c2, bufio.NewReader(c2), 2*time.Second); err != nil {
		t.Fatalf("a new connection after the heal: %v", err)
	}
}

func TestResetClosesConnections(t *testing.T) {
	p := path(t)
	c, err := net.Dial("tcp", p.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := roundTrip(c, r, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(Fault{Kind: Reset}); err != nil {
		t.Fatal(err)
	}
	_, err = roundTrip(c, r, 2*time.Second)
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("through a reset: got %v, expected the connection closed", err)
	}
	p.Heal()
	c2, err := net.Dial("tcp", p.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := roundTrip(c2, bufio.NewReader(c2), 2*time.Second); err != nil {
		t.Fatalf("reconnecting after a reset: %v", err)
	}
}

func TestLatencyDelaysBothWays(t *testing.T) {
	p := path(t)
	if err := p.Apply(Fault{Kind: Latency, Delay: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", p.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := roundTrip(c, bufio.NewReader(c), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if d < 200*time.Millisecond {
		t.Fatalf("round trip %v through 100ms each way, expected at least 200ms", d)
	}
}

func TestFaultCheck(t *testing.T) {
	for _, f := range []Fault{{Kind: "drop"}, {Kind: Latency}, {Kind: Latency, Delay: time.Millisecond, Jitter: time.Second}, {Kind: Bandwidth, Rate: 10}} {
		if f.Check() == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}

// A group is faulted as one: every path or none. Two groups sharing a
// path (two brokers' cuts share their link) cannot be faulted at once,
// and the refused one leaves no fault behind.
func TestGroupAllOrNone(t *testing.T) {
	s := NewSet()
	t.Cleanup(s.Close)
	var ps []*Path
	for _, n := range []string{"link-1-2", "link-2-1", "link-1-3", "link-3-1", "link-2-3", "link-3-2"} {
		p, err := s.Add(n, []Route{{Listen: "127.0.0.1:0", Upstream: echo(t)}})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	broker1 := NewGroup("broker-1", ps[0], ps[1], ps[2], ps[3])
	broker2 := NewGroup("broker-2", ps[0], ps[1], ps[4], ps[5])
	if err := broker1.Apply(Fault{Kind: Disconnect}); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		_, faulted := p.Fault()
		if want := i < 4; faulted != want {
			t.Errorf("%s: faulted %v, expected %v", p.Name(), faulted, want)
		}
	}
	if err := broker1.Apply(Fault{Kind: Reset}); err == nil {
		t.Error("a second fault on a faulted group was accepted")
	}
	if err := broker2.Apply(Fault{Kind: Disconnect}); err == nil {
		t.Fatal("a group sharing a faulted path was faulted")
	}
	// broker2's refusal healed only what it had applied.
	for _, p := range ps[4:] {
		if _, faulted := p.Fault(); faulted {
			t.Errorf("%s: still faulted after the refused group fault", p.Name())
		}
	}
	if _, faulted := ps[0].Fault(); !faulted {
		t.Error("the refused group fault healed the other group's path")
	}
	// A connection through a cut link passes nothing; healed, a new one does.
	c, err := net.Dial("tcp", ps[0].Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := roundTrip(c, bufio.NewReader(c), 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("through a cut link: got %v, expected a timeout", err)
	}
	broker1.Heal()
	for _, p := range ps {
		if _, faulted := p.Fault(); faulted {
			t.Errorf("%s: faulted after the heal", p.Name())
		}
	}
	c2, err := net.Dial("tcp", ps[0].Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := roundTrip(c2, bufio.NewReader(c2), 2*time.Second); err != nil {
		t.Fatalf("through a healed link: %v", err)
	}
	if err := broker2.Apply(Fault{Kind: Latency, Delay: 10 * time.Millisecond}); err != nil {
		t.Fatalf("after the heal, the other group: %v", err)
	}
	broker2.Heal()
}
