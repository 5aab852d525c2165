package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Conn is a member's authenticated connection to the driver's control
// endpoint.
type Conn struct {
	conn net.Conn
	r    *bufio.Reader
	key  []byte
	seq  uint64 // the last command's
}

// Dial connects to the driver's control endpoint at addr as the member
// incarnation name.inc and runs the handshake: both sides prove they
// hold token. It gives up at ctx's deadline or after HandshakeTimeout,
// whichever comes first. An error wrapping ErrRefused means the driver
// refused the member, or could not prove that it holds the token: a
// retry cannot succeed.
func Dial(ctx context.Context, addr, token, name string, inc int) (*Conn, error) {
	if err := CheckToken(token); err != nil {
		return nil, err
	}
	if !nameRE.MatchString(name) || inc < 0 || inc > MaxInc {
		return nil, fmt.Errorf("member %s.%d: expected a member's name and incarnation", name, inc)
	}
	ctx, cancel := context.WithTimeout(ctx, HandshakeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	c, err := handshakeMember(conn, []byte(token), name, inc)
	if err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return c, nil
}

func handshakeMember(conn net.Conn, token []byte, name string, inc int) (*Conn, error) {
	h := handshake{name: name, inc: inc}
	var err error
	if h.nonceM, err = newNonce(); err != nil {
		return nil, err
	}
	b, _ := frame("HELLO", Version, name, strconv.Itoa(inc), h.nonceM)
	if _, err := conn.Write(b); err != nil {
		return nil, err
	}
	r := newReader(conn)
	line, err := readFrame(r)
	if err != nil {
		return nil, fmt.Errorf("challenge: %w", err)
	}
	if reason, ok := strings.CutPrefix(line, "REFUSED "); ok {
		return nil, fmt.Errorf("%w by the driver: %s", ErrRefused, reason)
	}
	f := strings.Split(line, " ")
	if len(f) != 3 || f[0] != "CHALLENGE" || !nonceRE.MatchString(f[1]) || !macRE.MatchString(f[2]) {
		return nil, fmt.Errorf("%w: expected CHALLENGE, got %q", ErrBadFrame, clipReason(line))
	}
	h.nonceD = f[1]
	if !macEqual(f[2], h.driverProof(token)) {
		return nil, fmt.Errorf("%w: the endpoint could not prove that it holds the run's token", ErrRefused)
	}
	b, _ = frame("AUTH", h.memberProof(token))
	if _, err := conn.Write(b); err != nil {
		return nil, err
	}
	line, err = readFrame(r)
	if err != nil {
		return nil, fmt.Errorf("ready: %w", err)
	}
	if reason, ok := strings.CutPrefix(line, "REFUSED "); ok {
		return nil, fmt.Errorf("%w by the driver: %s", ErrRefused, reason)
	}
	if line != "READY" {
		return nil, fmt.Errorf("%w: expected READY, got %q", ErrBadFrame, clipReason(line))
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetKeepAlive(true)
		tc.SetKeepAlivePeriod(15 * time.Second)
	}
	return &Conn{conn: conn, r: r, key: h.sessionKey(token)}, nil
}

// Serve reads the driver's commands until the connection ends, hands
// each to handle, and acknowledges it with handle's answer: ok, or its
// error as the reason. A command out of sequence or whose MAC does not
// hold (a forgery, a replay) ends the connection before handle sees it.
// It returns why the connection ended.
func (c *Conn) Serve(handle func(cmd string) error) error {
	for {
		line, err := readFrame(c.r)
		if err != nil {
			return err
		}
		f := strings.SplitN(line, " ", 4)
		if len(f) != 4 || f[0] != "CMD" {
			return fmt.Errorf("%w: expected CMD, got %q", ErrBadFrame, clipReason(line))
		}
		seq, err := parseSeq(f[1])
		if err != nil {
			return err
		}
		if seq != c.seq+1 {
			return fmt.Errorf("%w: command %d after %d", ErrBadFrame, seq, c.seq)
		}
		if !macEqual(f[2], cmdMAC(c.key, seq, f[3])) {
			return fmt.Errorf("%w: command %d: its MAC does not hold", ErrRefused, seq)
		}
		c.seq = seq
		result := "ok"
		if err := handle(f[3]); err != nil {
			result = "error " + clipReason(err.Error())
		}
		b, err := frame("ACK", strconv.FormatUint(seq, 10), ackMAC(c.key, seq, result), result)
		if err != nil {
			return err
		}
		c.conn.SetWriteDeadline(time.Now().Add(AckTimeout))
		if _, err := c.conn.Write(b); err != nil {
			return err
		}
	}
}

// Close ends the connection.
func (c *Conn) Close() error { return c.conn.Close() }

// RetryInterval is how long a member waits before connecting again.
const RetryInterval = time.Second

// Run is a member's side of the channel for its whole life: it connects
// to addr, serves the driver's commands with handle, and connects again
// (every RetryInterval) when it cannot connect or its connection is lost,
// until ctx ends. A refused handshake (ErrRefused) ends it: the driver
// refuses this token, or the endpoint is not the driver's. logf receives each change (connected, lost, refused), not
// each failed attempt.
func Run(ctx context.Context, addr, token, name string, inc int, handle func(cmd string) error, logf func(format string, args ...any)) error {
	failing := false
	for {
		c, err := Dial(ctx, addr, token, name, inc)
		if err == nil {
			logf("control: connected to %s", addr)
			failing = false
			stop := context.AfterFunc(ctx, func() { c.Close() })
			err = c.Serve(handle)
			stop()
			c.Close()
			if ctx.Err() != nil {
				return nil
			}
			// Even a forged command ends only this connection: the
			// driver's endpoint itself proved it holds the token.
			logf("control: connection to %s lost: %v", addr, err)
			err = nil
		}
		if errors.Is(err, ErrRefused) {
			logf("control: %s: %v", addr, err)
			return err
		}
		if err != nil && !failing && ctx.Err() == nil {
			logf("control: cannot connect to %s (trying again every %s): %v", addr, RetryInterval, err)
			failing = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(RetryInterval):
		}
	}
}
