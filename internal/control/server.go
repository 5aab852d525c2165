package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxConns bounds the connections the endpoint holds at once, in their
// handshake or authenticated: a flood of connections is refused beyond
// it rather than exhausting the driver's descriptors.
const MaxConns = 1024

// Server is the driver's control endpoint: members connect to it,
// prove that they hold the run's token, and take the driver's commands
// (Send).
type Server struct {
	ln    net.Listener
	token []byte
	logf  func(format string, args ...any)
	// HandshakeTimeout and AckTimeout, which the tests shorten.
	handshakeTimeout, ackTimeout time.Duration

	mu       sync.Mutex
	sessions map[string]*session // by "<name>.<inc>"
	conns    map[net.Conn]bool   // every connection, in its handshake or not
	closed   bool
	// changed is closed, and replaced, whenever a member connects.
	changed chan struct{}
	wg      sync.WaitGroup
}

// maxLateAcks bounds the acknowledgements a session holds unread: those
// of commands whose wait timed out (a member frozen by a pause answers
// them all when it resumes), and the one being waited for.
const maxLateAcks = 8

// session is one member incarnation's authenticated connection.
type session struct {
	who  string
	conn net.Conn
	key  []byte
	// ackTimeout bounds the wait for each acknowledgement.
	ackTimeout time.Duration
	// acks carries the ACK frames the reading goroutine reads.
	acks chan ack
	done chan struct{} // closed when the connection has ended
	err  error         // why, once done

	mu  sync.Mutex // one command at a time
	seq uint64
}

type ack struct {
	seq    uint64
	result string // "ok", or "error <reason>"
}

// Serve starts a control endpoint listening on addr ("127.0.0.1:0" for a
// local run; an address the Pods reach for a run across hosts) for
// members holding token. logf receives what the endpoint refused (nil:
// nothing is logged).
func Serve(addr, token string, logf func(format string, args ...any)) (*Server, error) {
	return serve(addr, token, logf, HandshakeTimeout, AckTimeout)
}

// serve is Serve with the timeouts given (the tests shorten them).
func serve(addr, token string, logf func(format string, args ...any), handshakeTimeout, ackTimeout time.Duration) (*Server, error) {
	if err := CheckToken(token); err != nil {
		return nil, fmt.Errorf("control endpoint: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("control endpoint: %w", err)
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	s := &Server{ln: ln, token: []byte(token), logf: logf, handshakeTimeout: handshakeTimeout, ackTimeout: ackTimeout,
		sessions: map[string]*session{}, conns: map[net.Conn]bool{}, changed: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the endpoint's address, host:port, as the members are given it.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the endpoint and ends every connection.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.changed) // wakes every Send waiting for a member
	}
	for conn := range s.conns {
		conn.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		s.mu.Lock()
		full := len(s.conns) >= MaxConns || s.closed
		if !full {
			s.conns[conn] = true
		}
		s.mu.Unlock()
		if full {
			conn.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(conn)
			s.mu.Lock()
			delete(s.conns, conn)
			s.mu.Unlock()
		}()
	}
}

// serveConn runs one connection: the handshake, then the reading of its
// acknowledgements until it ends.
func (s *Server) serveConn(conn net.Conn) {
	defer conn.Close()
	r := newReader(conn)
	ss, err := s.handshake(conn, r)
	if err != nil {
		s.logf("control: refused a connection from %s: %v", conn.RemoteAddr(), err)
		return
	}
	s.register(ss)
	ss.err = ss.read(r)
	close(ss.done)
	s.mu.Lock()
	if s.sessions[ss.who] == ss {
		delete(s.sessions, ss.who)
	}
	s.mu.Unlock()
}

// handshake authenticates a member's connection (the package doc).
func (s *Server) handshake(conn net.Conn, r *bufio.Reader) (*session, error) {
	conn.SetDeadline(time.Now().Add(s.handshakeTimeout))
	refuse := func(reason string, err error) (*session, error) {
		if b, ferr := frame("REFUSED", clipReason(reason)); ferr == nil {
			conn.Write(b)
		}
		return nil, err
	}
	line, err := readFrame(r)
	if err != nil {
		return nil, fmt.Errorf("hello: %w", err)
	}
	f := strings.Split(line, " ")
	if len(f) != 5 || f[0] != "HELLO" {
		return refuse("expected HELLO", fmt.Errorf("%w: expected HELLO, got %q", ErrBadFrame, clipReason(line)))
	}
	if f[1] != Version {
		return refuse("protocol version "+Version+" only", fmt.Errorf("protocol version %q", clipReason(f[1])))
	}
	inc, ierr := strconv.Atoi(f[3])
	if !nameRE.MatchString(f[2]) || ierr != nil || inc < 0 || inc > MaxInc || !nonceRE.MatchString(f[4]) {
		return refuse("bad HELLO", fmt.Errorf("%w: %q", ErrBadFrame, clipReason(line)))
	}
	h := handshake{name: f[2], inc: inc, nonceM: f[4]}
	if h.nonceD, err = newNonce(); err != nil {
		return nil, err
	}
	b, _ := frame("CHALLENGE", h.nonceD, h.driverProof(s.token))
	if _, err := conn.Write(b); err != nil {
		return nil, err
	}
	line, err = readFrame(r)
	if err != nil {
		return nil, fmt.Errorf("%s.%d: auth: %w", h.name, h.inc, err)
	}
	f = strings.Split(line, " ")
	if len(f) != 2 || f[0] != "AUTH" || !macRE.MatchString(f[1]) {
		return refuse("expected AUTH", fmt.Errorf("%s.%d: %w: expected AUTH", h.name, h.inc, ErrBadFrame))
	}
	if !macEqual(f[1], h.memberProof(s.token)) {
		return refuse("bad token", fmt.Errorf("%s.%d: %w: the proof of the token does not hold", h.name, h.inc, ErrRefused))
	}
	b, _ = frame("READY")
	if _, err := conn.Write(b); err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetKeepAlive(true)
		tc.SetKeepAlivePeriod(15 * time.Second)
	}
	return &session{who: h.name + "." + strconv.Itoa(h.inc), conn: conn, key: h.sessionKey(s.token),
		ackTimeout: s.ackTimeout, acks: make(chan ack, maxLateAcks), done: make(chan struct{})}, nil
}

// register makes ss the connection of its member incarnation; an older
// one of the same incarnation is closed.
func (s *Server) register(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		ss.conn.Close()
		return
	}
	if old := s.sessions[ss.who]; old != nil {
		old.conn.Close()
	}
	s.sessions[ss.who] = ss
	close(s.changed)
	s.changed = make(chan struct{})
}

// read reads the session's frames, which can only be acknowledgements,
// until the connection ends or breaks the protocol.
func (ss *session) read(r *bufio.Reader) error {
	for {
		line, err := readFrame(r)
		if err != nil {
			return err
		}
		f := strings.SplitN(line, " ", 4)
		if len(f) != 4 || f[0] != "ACK" {
			return fmt.Errorf("%w: expected ACK, got %q", ErrBadFrame, clipReason(line))
		}
		seq, err := parseSeq(f[1])
		if err != nil {
			return err
		}
		if !macEqual(f[2], ackMAC(ss.key, seq, f[3])) {
			return fmt.Errorf("%w: ACK %d: its MAC does not hold", ErrRefused, seq)
		}
		select {
		case ss.acks <- ack{seq: seq, result: f[3]}:
		default:
			return fmt.Errorf("%w: ACK %d unasked", ErrBadFrame, seq)
		}
	}
}

// Connected reports whether a member incarnation holds a connection.
func (s *Server) Connected(name string, inc int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[name+"."+strconv.Itoa(inc)] != nil
}

// Send sends a command to a member incarnation and returns once it has
// acknowledged it: nil when the member took it, its reason when it
// refused it. A member not yet connected is waited for until ctx ends;
// the acknowledgement, for AckTimeout.
func (s *Server) Send(ctx context.Context, name string, inc int, cmd string) error {
	if err := CheckCommand(cmd); err != nil {
		return err
	}
	who := name + "." + strconv.Itoa(inc)
	for {
		s.mu.Lock()
		ss, changed, closed := s.sessions[who], s.changed, s.closed
		s.mu.Unlock()
		if closed {
			return errors.New("control endpoint closed")
		}
		if ss != nil {
			return ss.send(cmd)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%s has not connected to the control endpoint: %w", who, context.Cause(ctx))
		}
	}
}

// send is Send on the session.
func (ss *session) send(cmd string) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.seq++
	seq := ss.seq
	b, err := frame("CMD", strconv.FormatUint(seq, 10), cmdMAC(ss.key, seq, cmd), cmd)
	if err != nil {
		return err
	}
	ss.conn.SetWriteDeadline(time.Now().Add(ss.ackTimeout))
	if _, err := ss.conn.Write(b); err != nil {
		ss.conn.Close()
		return fmt.Errorf("%s: %w", ss.who, err)
	}
	timeout := time.NewTimer(ss.ackTimeout)
	defer timeout.Stop()
	for {
		select {
		case a := <-ss.acks:
			if a.seq < seq {
				continue // the late acknowledgement of a command that timed out
			}
			if a.seq > seq {
				ss.conn.Close()
				return fmt.Errorf("%s: %w: ACK %d to command %d", ss.who, ErrBadFrame, a.seq, seq)
			}
			if a.result == "ok" {
				return nil
			}
			if reason, ok := strings.CutPrefix(a.result, "error "); ok {
				return fmt.Errorf("%s refused %q: %s", ss.who, cmd, reason)
			}
			return fmt.Errorf("%s: %w: ACK %d says %q", ss.who, ErrBadFrame, seq, clipReason(a.result))
		case <-ss.done:
			return fmt.Errorf("%s: the connection ended before its acknowledgement: %v", ss.who, ss.err)
		case <-timeout.C:
			return fmt.Errorf("%s: no acknowledgement of %q within %s", ss.who, cmd, ss.ackTimeout)
		}
	}
}
