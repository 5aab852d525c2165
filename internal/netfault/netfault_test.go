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
