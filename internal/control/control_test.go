package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

func testToken(t *testing.T) string {
	t.Helper()
	tok, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// logs collects an endpoint's or a member's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// endpoint starts a driver's endpoint with short timeouts.
func endpoint(t *testing.T, token string) (*Server, *logs) {
	t.Helper()
	var l logs
	s, err := serve("127.0.0.1:0", token, l.logf, 300*time.Millisecond, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &l
}

// member runs a member's side until the test ends; its commands go to
// handle.
func member(t *testing.T, addr, token, name string, inc int, handle func(string) error) (*logs, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var l logs
	done, exited := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(exited)
		done <- Run(ctx, addr, token, name, inc, handle, l.logf)
	}()
	t.Cleanup(func() { cancel(); <-exited })
	return &l, done
}

func waitConnected(t *testing.T, s *Server, name string, inc int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !s.Connected(name, inc) {
		if time.Now().After(deadline) {
			t.Fatalf("%s.%d never connected", name, inc)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A command reaches the member it is sent to, in order, once each, and
// Send returns the member's answer: nil when it took the command, its
// reason when it refused it.
func TestCommandsAcknowledged(t *testing.T) {
	tok := testToken(t)
	s, _ := endpoint(t, tok)
	var mu sync.Mutex
	got := map[string][]string{}
	handler := func(who string) func(string) error {
		return func(cmd string) error {
			mu.Lock()
			got[who] = append(got[who], cmd)
			mu.Unlock()
			if !strings.HasPrefix(cmd, "slow ") {
				return fmt.Errorf("unknown command %q", cmd)
			}
			return nil
		}
	}
	member(t, s.Addr(), tok, "m1", 0, handler("m1.0"))
	member(t, s.Addr(), tok, "m2", 3, handler("m2.3"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Send waits for a member that has not connected yet.
	if err := s.Send(ctx, "m1", 0, "slow 1s"); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, "m2", 3, "slow 20ms"); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctx, "m1", 0, "slow 2s"); err != nil {
		t.Fatal(err)
	}
	err := s.Send(ctx, "m1", 0, "jump 3")
	if err == nil || !strings.Contains(err.Error(), `m1.0 refused "jump 3": unknown command "jump 3"`) {
		t.Errorf("a refused command: %v", err)
	}
	// The channel goes on after a refusal.
	if err := s.Send(ctx, "m1", 0, "slow 3s"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{"m1.0": "slow 1s|slow 2s|jump 3|slow 3s", "m2.3": "slow 20ms"}
	for who, w := range want {
		if g := strings.Join(got[who], "|"); g != w {
			t.Errorf("%s took %q, want %q", who, g, w)
		}
	}
}

// A member that does not hold the run's token is refused, and never gets
// a command; so is one that does not answer the challenge. A member
// refused gives up: a retry cannot succeed.
func TestWrongTokenRefused(t *testing.T) {
	tok := testToken(t)
	s, slog := endpoint(t, tok)

	// A member with another token finds that the endpoint cannot prove
	// it holds the member's: it refuses the driver and sends no proof.
	other := testToken(t)
	called := false
	mlog, done := member(t, s.Addr(), other, "m1", 0, func(string) error { called = true; return nil })
	select {
	case err := <-done:
		if !errors.Is(err, ErrRefused) {
			t.Errorf("the member's Run ended with %v, want ErrRefused", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a member with the wrong token kept trying")
	}
	if !strings.Contains(mlog.String(), "could not prove that it holds the run's token") {
		t.Errorf("member's log:\n%s", mlog)
	}

	// A process that answers the challenge without the token: REFUSED.
	conn, r := rawConn(t, s.Addr())
	fmt.Fprintf(conn, "HELLO 1 m1 0 %s\n", strings.Repeat("ab", 16))
	line := mustRead(t, r)
	if !strings.HasPrefix(line, "CHALLENGE ") {
		t.Fatalf("got %q, want CHALLENGE", line)
	}
	fmt.Fprintf(conn, "AUTH %s\n", strings.Repeat("0", 64))
	if line := mustRead(t, r); line != "REFUSED bad token" {
		t.Errorf("got %q, want REFUSED bad token", line)
	}
	if _, err := readFrame(r); err == nil {
		t.Error("the connection stayed open after REFUSED")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := s.Send(ctx, "m1", 0, "slow 1s")
	if err == nil || !strings.Contains(err.Error(), "m1.0 has not connected") {
		t.Errorf("Send to a member refused: %v", err)
	}
	if called {
		t.Error("a member with the wrong token got a command")
	}
	if !strings.Contains(slog.String(), "the proof of the token does not hold") {
		t.Errorf("endpoint's log:\n%s", slog)
	}
}

// An endpoint that does not hold the token cannot pose as the driver:
// the member refuses its challenge before it proves anything itself.
func TestImpostorDriverRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	gotAuth := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := newReader(conn)
		readFrame(r) // HELLO
		fmt.Fprintf(conn, "CHALLENGE %s %s\n", strings.Repeat("cd", 16), strings.Repeat("1", 64))
		line, _ := readFrame(r)
		gotAuth <- line
	}()
	_, err = Dial(context.Background(), ln.Addr().String(), testToken(t), "m1", 0)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Dial to an impostor: %v, want ErrRefused", err)
	}
	if line := <-gotAuth; line != "" {
		t.Errorf("the member answered an impostor's challenge with %q", line)
	}
}

// A command whose MAC does not hold (forged, or altered on the way), or
// that repeats or skips a seq (replayed, dropped), ends the connection
// before the member acts on it.
func TestForgedAndReplayedCommandsRefused(t *testing.T) {
	tok := []byte(testToken(t))
	for _, tc := range []struct {
		name   string
		frames func(key []byte) []string
		want   error
		acted  string
	}{
		{"forged", func(key []byte) []string {
			return []string{"CMD 1 " + cmdMAC(key, 1, "slow 1s") + " slow 9s"}
		}, ErrRefused, ""},
		{"other key", func(key []byte) []string {
			return []string{"CMD 1 " + cmdMAC([]byte("another session"), 1, "slow 1s") + " slow 1s"}
		}, ErrRefused, ""},
		{"replayed", func(key []byte) []string {
			f := "CMD 1 " + cmdMAC(key, 1, "slow 1s") + " slow 1s"
			return []string{f, f}
		}, ErrBadFrame, "slow 1s"},
		{"skipped", func(key []byte) []string {
			return []string{"CMD 2 " + cmdMAC(key, 2, "slow 1s") + " slow 1s"}
		}, ErrBadFrame, ""},
		{"malformed", func(key []byte) []string { return []string{"CMD one two"} }, ErrBadFrame, ""},
		{"not a command", func(key []byte) []string { return []string{"READY"} }, ErrBadFrame, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, driver := pipeSession(t, tok)
			var acted []string
			done := make(chan error, 1)
			go func() {
				done <- c.Serve(func(cmd string) error { acted = append(acted, cmd); return nil })
			}()
			w := bufio.NewWriter(driver.conn)
			for _, f := range tc.frames(driver.key) {
				w.WriteString(f + "\n")
			}
			w.Flush()
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) {
					t.Errorf("Serve ended with %v, want %v", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Serve went on")
			}
			if g := strings.Join(acted, "|"); g != tc.acted {
				t.Errorf("the member acted on %q, want %q", g, tc.acted)
			}
		})
	}
}

// An acknowledgement whose MAC does not hold ends the connection, and
// the command's Send fails.
func TestForgedAckRefused(t *testing.T) {
	tok := testToken(t)
	s, _ := endpoint(t, tok)
	conn, r := rawConn(t, s.Addr())
	key := rawHandshake(t, conn, r, []byte(tok), "m1", 0)
	errc := make(chan error, 1)
	go func() { errc <- s.Send(context.Background(), "m1", 0, "slow 1s") }()
	line := mustRead(t, r)
	if !strings.HasPrefix(line, "CMD 1 "+cmdMAC(key, 1, "slow 1s")+" slow 1s") {
		t.Fatalf("got %q", line)
	}
	fmt.Fprintf(conn, "ACK 1 %s ok\n", ackMAC(key, 1, "error no"))
	if err := <-errc; err == nil {
		t.Error("a forged acknowledgement was taken")
	}
	if _, err := readFrame(r); err == nil {
		t.Error("the connection stayed open")
	}
}

// Frames are bounded: a line of MaxFrame bytes with its newline is read,
// one byte more is refused, whatever the peer sends after it; so is
// anything but printable ASCII. Commands are bounded before they are
// sent.
func TestFrameBounds(t *testing.T) {
	ok := strings.Repeat("a", MaxFrame-1)
	for _, tc := range []struct {
		in   string
		want error
		line string
	}{
		{ok + "\n", nil, ok},
		{ok + "a\n", ErrFrameTooLong, ""},
		{strings.Repeat("b", 10*MaxFrame), ErrFrameTooLong, ""},
		{"slow 1s\x00\n", ErrBadFrame, ""},
		{"slow 1sé\n", ErrBadFrame, ""},
		{"slow 1s\r\n", ErrBadFrame, ""},
		{"slow 1s", io.EOF, ""},
	} {
		line, err := readFrame(newReader(strings.NewReader(tc.in)))
		if !errors.Is(err, tc.want) || line != tc.line {
			t.Errorf("readFrame(%.20q...) = %.20q, %v; want %.20q, %v", tc.in, line, err, tc.line, tc.want)
		}
	}
	if _, err := frame(ok + "a"); !errors.Is(err, ErrFrameTooLong) {
		t.Errorf("frame beyond MaxFrame: %v", err)
	}
	for _, cmd := range []string{"", "  ", strings.Repeat("x", MaxCommand+1), "slow\n1s", "slow é"} {
		if CheckCommand(cmd) == nil {
			t.Errorf("CheckCommand(%.20q) passed", cmd)
		}
	}
	if err := CheckCommand(strings.Repeat("x", MaxCommand)); err != nil {
		t.Error(err)
	}
	// The longest command fits a CMD frame, with its seq at its largest.
	if _, err := frame("CMD", "18446744073709551615", strings.Repeat("f", 64), strings.Repeat("x", MaxCommand)); err != nil {
		t.Errorf("the longest command's frame: %v", err)
	}
	for _, tok := range []string{"", strings.Repeat("a", MinToken-1), strings.Repeat("a", MaxToken+1), strings.Repeat("a", 40) + " b", strings.Repeat("é", 20)} {
		if CheckToken(tok) == nil {
			t.Errorf("CheckToken(%.20q) passed", tok)
		}
	}
}

// The endpoint drops a connection whose first frame is beyond MaxFrame,
// without reading on, and stays up for the others.
func TestOversizedFrameDropped(t *testing.T) {
	tok := testToken(t)
	s, slog := endpoint(t, tok)
	conn, r := rawConn(t, s.Addr())
	go conn.Write([]byte(strings.Repeat("H", 64*MaxFrame)))
	if _, err := readFrame(r); err == nil {
		t.Error("the endpoint answered an oversized frame")
	}
	if !strings.Contains(slog.String(), ErrFrameTooLong.Error()) {
		t.Errorf("endpoint's log:\n%s", slog)
	}
	member(t, s.Addr(), tok, "m1", 0, func(string) error { return nil })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Send(ctx, "m1", 0, "slow 1s"); err != nil {
		t.Error(err)
	}
	// An oversized command is refused before it is sent.
	if err := s.Send(ctx, "m1", 0, "slow "+strings.Repeat("9", MaxCommand)); err == nil {
		t.Error("an oversized command was sent")
	}
}

// Timeouts: the endpoint drops a peer that does not finish its handshake
// in time; a member gives up on an endpoint that does not answer; the
// driver gives up waiting for an acknowledgement that does not come (a
// member frozen by SIGSTOP), and the late acknowledgement does not
// confuse the next command's.
func TestTimeouts(t *testing.T) {
	tok := testToken(t)
	s, slog := endpoint(t, tok)

	// A silent peer.
	conn, r := rawConn(t, s.Addr())
	start := time.Now()
	if _, err := readFrame(r); err == nil {
		t.Error("the endpoint answered a silent peer")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a silent peer was held %v, with a handshake timeout of 300ms", d)
	}
	conn.Close()
	if !strings.Contains(slog.String(), "timeout") {
		t.Errorf("endpoint's log:\n%s", slog)
	}

	// A silent endpoint.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Dial(ctx, ln.Addr().String(), tok, "m1", 0); err == nil || errors.Is(err, ErrRefused) {
		t.Errorf("Dial to a silent endpoint: %v, want a timeout", err)
	}

	// A member that takes longer than the acknowledgement timeout.
	release := make(chan struct{})
	var mu sync.Mutex
	var took []string
	member(t, s.Addr(), tok, "m2", 0, func(cmd string) error {
		if cmd == "slow 1s" {
			<-release
		}
		mu.Lock()
		took = append(took, cmd)
		mu.Unlock()
		return nil
	})
	waitConnected(t, s, "m2", 0)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	err = s.Send(ctx2, "m2", 0, "slow 1s")
	if err == nil || !strings.Contains(err.Error(), "no acknowledgement") {
		t.Errorf("Send to a frozen member: %v", err)
	}
	close(release)
	if err := s.Send(ctx2, "m2", 0, "slow 2s"); err != nil {
		t.Errorf("the command after a late acknowledgement: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if g := strings.Join(took, "|"); g != "slow 1s|slow 2s" {
		t.Errorf("the member took %q", g)
	}
}

// A member whose connection is lost connects again and takes the next
// command; a second connection of the same incarnation replaces the
// first; another incarnation's is apart.
func TestReconnect(t *testing.T) {
	tok := testToken(t)
	s, _ := endpoint(t, tok)
	var n sync.WaitGroup
	n.Add(2)
	member(t, s.Addr(), tok, "m1", 0, func(string) error { n.Done(); return nil })
	waitConnected(t, s, "m1", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Send(ctx, "m1", 0, "slow 1s"); err != nil {
		t.Fatal(err)
	}
	// The endpoint drops the connection.
	s.mu.Lock()
	s.sessions["m1.0"].conn.Close()
	s.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := s.Send(ctx, "m1", 0, "slow 2s")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never reconnected: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	n.Wait()
	if s.Connected("m1", 1) {
		t.Error("m1.1 connected: it never ran")
	}
}

// Close ends every connection at once, those still in their handshake
// too, and a Send waiting for a member.
func TestCloseEndsEverything(t *testing.T) {
	tok := testToken(t)
	s, err := serve("127.0.0.1:0", tok, nil, time.Minute, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, r := rawConn(t, s.Addr()) // silent: in its handshake for a minute
	member(t, s.Addr(), tok, "m1", 0, func(string) error { return nil })
	waitConnected(t, s, "m1", 0)
	sent := make(chan error, 1)
	go func() { sent <- s.Send(context.Background(), "m9", 0, "slow 1s") }()
	time.Sleep(50 * time.Millisecond) // Send waits for m9
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if _, err := readFrame(r); err == nil {
		t.Error("a connection in its handshake outlived Close")
	}
	select {
	case err := <-sent:
		if err == nil {
			t.Error("Send succeeded after Close")
		}
	case <-time.After(5 * time.Second):
		t.Error("Send still waiting after Close")
	}
}

// rawConn is a connection to addr, for a test to speak the protocol by
// hand.
func rawConn(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { conn.Close() })
	return conn, newReader(conn)
}

func mustRead(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := readFrame(r)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// rawHandshake runs a member's handshake by hand and returns the session
// key.
func rawHandshake(t *testing.T, conn net.Conn, r *bufio.Reader, tok []byte, name string, inc int) []byte {
	t.Helper()
	h := handshake{name: name, inc: inc, nonceM: strings.Repeat("ab", 16)}
	fmt.Fprintf(conn, "HELLO 1 %s %d %s\n", name, inc, h.nonceM)
	f := strings.Split(mustRead(t, r), " ")
	if len(f) != 3 || f[0] != "CHALLENGE" {
		t.Fatalf("got %v", f)
	}
	h.nonceD = f[1]
	if f[2] != h.driverProof(tok) {
		t.Fatal("the driver's proof does not hold")
	}
	fmt.Fprintf(conn, "AUTH %s\n", h.memberProof(tok))
	if line := mustRead(t, r); line != "READY" {
		t.Fatalf("got %q", line)
	}
	return h.sessionKey(tok)
}

// testDriver is the driver's end of a session made by hand.
type testDriver struct {
	conn net.Conn
	key  []byte
}

// pipeSession is a member's Conn and the driver's end of its connection,
// after a handshake by hand on the driver's side.
func pipeSession(t *testing.T, tok []byte) (*Conn, testDriver) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type result struct {
		d   testDriver
		err error
	}
	res := make(chan result, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			res <- result{err: err}
			return
		}
		r := newReader(conn)
		line, err := readFrame(r)
		f := strings.Split(line, " ")
		if err != nil || len(f) != 5 {
			res <- result{err: fmt.Errorf("hello %q: %v", line, err)}
			return
		}
		h := handshake{name: f[2], inc: 0, nonceM: f[4], nonceD: strings.Repeat("cd", 16)}
		fmt.Fprintf(conn, "CHALLENGE %s %s\n", h.nonceD, h.driverProof(tok))
		readFrame(r) // AUTH
		fmt.Fprintf(conn, "READY\n")
		res <- result{d: testDriver{conn: conn, key: h.sessionKey(tok)}}
	}()
	c, err := Dial(context.Background(), ln.Addr().String(), string(tok), "m1", 0)
	if err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { c.Close(); r.d.conn.Close() })
	return c, r.d
}
