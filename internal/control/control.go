// Package control is a member's control channel over the network: the
// driver's commands (`slow <duration>`) and the member's acknowledgements,
// for members the driver cannot reach through a pipe to their standard
// input (a Pod on another host).
//
// The member connects out to the driver's control endpoint (Serve), as
// it already reaches the driver's time endpoint (internal/clock): the
// driver has one address that every member is given, and a member needs
// no listening port, no address to announce and nothing that reaches
// into its Pod through NAT or a network policy (docs/design.md, "Beyond
// one host").
//
// The protocol, version 1. Every frame is one line of printable ASCII
// ending in a newline, at most MaxFrame bytes with the newline; fields are
// separated by one space. A frame that is longer, holds anything else, or
// is not the one expected ends the connection.
//
//	member: HELLO 1 <name> <inc> <nonce_m>
//	driver: CHALLENGE <nonce_d> <proof_d>     or REFUSED <reason>, then close
//	member: AUTH <proof_m>                    (after checking proof_d; else close)
//	driver: READY                             or REFUSED <reason>, then close
//	driver: CMD <seq> <mac> <command>         seq 1, 2, 3, ...
//	member: ACK <seq> <mac> ok                or ACK <seq> <mac> error <reason>
//
// The nonces are 16 random bytes each, in hex. Both sides prove that they
// hold the run's token (Token, given to members in TokenEnv, never on a
// command line) without sending it: proof_d and proof_m are HMAC-SHA256s
// under the token of the role, the member's name and incarnation and both
// nonces. Every command and acknowledgement then carries the HMAC of its
// seq and text under a session key made the same way, so that a process
// that can reach the endpoint, or sees and alters the traffic, can
// neither connect as a member, nor pose as the driver, nor forge, replay
// or reorder a command. The commands are not secret: nothing is
// encrypted.
//
// The handshake must end within HandshakeTimeout; the driver waits
// AckTimeout for each acknowledgement, and an idle connection is kept
// open by TCP keep-alives.
package control

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Version is the protocol's version, the second field of HELLO.
const Version = "1"

// MaxFrame bounds a frame, its newline included.
const MaxFrame = 512

// MaxCommand bounds a command's text: a CMD frame's other fields (its
// seq and MAC) fit in the rest of MaxFrame.
const MaxCommand = 256

// MaxReason bounds the reason of an ACK error or a REFUSED frame.
const MaxReason = 200

// HandshakeTimeout bounds the handshake, on both sides: a peer that says
// nothing, or too little, is dropped.
const HandshakeTimeout = 5 * time.Second

// AckTimeout bounds the driver's wait for a command's acknowledgement.
// A member acknowledges a command as soon as it has taken it; a paused
// member (SIGSTOP) acknowledges it when it resumes.
const AckTimeout = 5 * time.Second

// MaxInc bounds an incarnation a member announces.
const MaxInc = 1_000_000

// TokenEnv is the environment variable through which a member gets the
// run's token: a process's environment is readable by its own user alone,
// unlike its command line (member.Config.Env).
const TokenEnv = "CHAOSBENCH_CONTROL_TOKEN"

// MinToken and MaxToken bound a token's length in characters.
const (
	MinToken = 32
	MaxToken = 256
)

// NewToken returns a new run's token: 32 random bytes, in hex.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// CheckToken refuses a token outside the bounds or with a character that
// is not printable ASCII.
func CheckToken(token string) error {
	if len(token) < MinToken || len(token) > MaxToken {
		return fmt.Errorf("expected a token of %d to %d characters, got %d", MinToken, MaxToken, len(token))
	}
	if !printable(token) || strings.Contains(token, " ") {
		return errors.New("expected a token of printable ASCII without spaces")
	}
	return nil
}

// Errors of the frames.
var (
	// ErrFrameTooLong is a frame beyond MaxFrame.
	ErrFrameTooLong = fmt.Errorf("frame longer than %d bytes", MaxFrame)
	// ErrBadFrame is a frame that is not printable ASCII, or not the one
	// expected.
	ErrBadFrame = errors.New("malformed frame")
	// ErrRefused is a handshake the other side refused, or whose proof
	// did not hold: retrying with the same token cannot succeed.
	ErrRefused = errors.New("refused")
)

// readFrame reads one frame, without its newline. r's buffer must hold
// MaxFrame bytes (newReader).
func readFrame(r *bufio.Reader) (string, error) {
	b, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", ErrFrameTooLong
	}
	if err != nil {
		return "", err
	}
	line := string(b[:len(b)-1])
	if !printable(line) {
		return "", fmt.Errorf("%w: not printable ASCII", ErrBadFrame)
	}
	return line, nil
}

// newReader is a reader whose buffer holds exactly one frame.
func newReader(r interface{ Read([]byte) (int, error) }) *bufio.Reader {
	return bufio.NewReaderSize(r, MaxFrame)
}

// frame is a frame's bytes with its newline, or an error when it would
// exceed MaxFrame or hold anything but printable ASCII.
func frame(fields ...string) ([]byte, error) {
	line := strings.Join(fields, " ")
	if len(line)+1 > MaxFrame {
		return nil, ErrFrameTooLong
	}
	if !printable(line) {
		return nil, fmt.Errorf("%w: not printable ASCII", ErrBadFrame)
	}
	return []byte(line + "\n"), nil
}

// printable reports whether s is printable ASCII (0x20 to 0x7e) alone.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// CheckCommand refuses a command the channel cannot carry: empty, longer
// than MaxCommand, or with a character that is not printable ASCII.
func CheckCommand(cmd string) error {
	switch {
	case strings.TrimSpace(cmd) == "":
		return errors.New("empty command")
	case len(cmd) > MaxCommand:
		return fmt.Errorf("command of %d bytes: at most %d", len(cmd), MaxCommand)
	case !printable(cmd):
		return fmt.Errorf("command %q: expected printable ASCII", cmd)
	}
	return nil
}

// nameRE is a member's name, as member.Config requires it.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// nonceRE is a nonce: 16 bytes in hex.
var nonceRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// macRE is an HMAC-SHA256 in hex.
var macRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func newNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// mac is the HMAC-SHA256 of the fields joined by spaces, under key, in
// hex. Every field but the last is free of spaces, so no two lists of
// fields give one text.
func mac(key []byte, fields ...string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(strings.Join(fields, " ")))
	return hex.EncodeToString(h.Sum(nil))
}

// macEqual compares two MACs in constant time.
func macEqual(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

// handshake holds what both sides' proofs and the session key are made
// of: who the member says it is, and the two nonces.
type handshake struct {
	name           string
	inc            int
	nonceM, nonceD string
}

func (h handshake) fields(label string) []string {
	return []string{"chaosbench-control", label, h.name, strconv.Itoa(h.inc), h.nonceM, h.nonceD}
}

// driverProof proves to the member that the driver holds the token.
func (h handshake) driverProof(token []byte) string { return mac(token, h.fields("driver")...) }

// memberProof proves to the driver that the member holds the token.
func (h handshake) memberProof(token []byte) string { return mac(token, h.fields("member")...) }

// sessionKey keys the MACs of the connection's commands and
// acknowledgements.
func (h handshake) sessionKey(token []byte) []byte {
	k, _ := hex.DecodeString(mac(token, h.fields("session")...))
	return k
}

// cmdMAC and ackMAC are a command's and an acknowledgement's MACs.
func cmdMAC(key []byte, seq uint64, cmd string) string {
	return mac(key, "cmd", strconv.FormatUint(seq, 10), cmd)
}

func ackMAC(key []byte, seq uint64, result string) string {
	return mac(key, "ack", strconv.FormatUint(seq, 10), result)
}

// parseSeq reads a frame's seq: a decimal number from 1.
func parseSeq(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 || len(s) > 20 {
		return 0, fmt.Errorf("%w: seq %q", ErrBadFrame, s)
	}
	return n, nil
}

// clipReason cuts a reason to MaxReason bytes of printable ASCII.
func clipReason(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < MaxReason; i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			c = '?'
		}
		b.WriteByte(c)
	}
	return b.String()
}
