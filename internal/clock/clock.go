// Package clock measures a process's clock against the driver's. The
// driver serves its time (Serve); every other process of a run (members,
// producer) asks for it a few times at its start and at its end
// (Measure) and records what it found as a `clock` event of its history
// (Event), by which the merge puts the process's times on the driver's
// clock (internal/history/clock.go, docs/history.md). On one host the
// offsets are a few microseconds; across hosts they are whatever the
// hosts' clocks say, and the analysis does not depend on them agreeing.
//
// The measurement is the midpoint rule: a request sent at local time t0,
// answered with the driver's time d, its answer received at t1. The
// driver read its clock somewhere between t0 and t1, so the local clock's
// offset is (t0+t1)/2 - d within +-(t1-t0)/2. Of a few samples, the one
// of the shortest round trip is kept: the tightest bound.
package clock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
)

// Path is the time endpoint's path on the driver's server.
const Path = "/chaosbench/time"

// Samples is how many requests a measurement makes.
const Samples = 5

// MaxRoundTrip bounds the round trip of a sample that is kept: a sample
// slower than this bounds nothing useful (an offset known within a
// second) and is discarded.
const MaxRoundTrip = 2 * time.Second

// Server serves the driver's clock: GET Path answers the driver's wall
// clock, Unix nanoseconds, as a decimal number.
type Server struct {
	ln  net.Listener
	srv *http.Server
	url string
}

// Serve starts a time endpoint listening on addr ("127.0.0.1:0" for a
// local run: a free port on the loopback).
func Serve(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("clock endpoint: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		// Read as late as possible: just before the answer is written.
		b := strconv.AppendInt(nil, time.Now().UnixNano(), 10)
		w.Header().Set("Content-Type", "text/plain")
		w.Write(b)
	})
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}}
	s.url = "http://" + ln.Addr().String() + Path
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the endpoint's address, as the processes are given it.
func (s *Server) URL() string { return s.url }

// Close stops the endpoint.
func (s *Server) Close() error { return s.srv.Close() }

// A Measurement is one process's clock against the driver's.
type Measurement struct {
	// At is the local time of the kept sample's midpoint, Unix ns.
	At int64
	// Offset is the local clock minus the driver's, ns.
	Offset int64
	// Error bounds Offset: half the kept sample's round trip, ns.
	Error int64
}

// Event returns the measurement as a history event (its proc and inc
// are the sink's to set).
func (m Measurement) Event() history.Event {
	return history.Event{Kind: history.Clock, T: m.At, ClockOffset: m.Offset, ClockError: m.Error}
}

// maxAnswer bounds the endpoint's answer: a decimal int64 and a newline.
const maxAnswer = 32

// Measure asks the endpoint at url for the driver's time samples times
// and returns the midpoint rule's offset of the sample with the shortest
// round trip. now is the local clock, Unix ns (the clock the process
// stamps its history with).
func Measure(ctx context.Context, url string, now func() int64, samples int) (Measurement, error) {
	if samples < 1 {
		samples = 1
	}
	client := &http.Client{Timeout: MaxRoundTrip}
	defer client.CloseIdleConnections()
	var best Measurement
	found := false
	var errs []error
	for range samples {
		if ctx.Err() != nil {
			break
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return Measurement{}, fmt.Errorf("clock endpoint %s: %w", url, err)
		}
		t0 := now()
		resp, err := client.Do(req)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
		t1 := now()
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %s", resp.Status)
		}
		var d int64
		if err == nil {
			d, err = parseAnswer(b)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rtt := t1 - t0
		if rtt < 0 || rtt > int64(MaxRoundTrip) {
			errs = append(errs, fmt.Errorf("round trip %v", time.Duration(rtt)))
			continue
		}
		m := midpoint(t0, t1, d)
		if !found || m.Error < best.Error {
			best, found = m, true
		}
	}
	if !found {
		if len(errs) == 0 {
			errs = append(errs, ctx.Err())
		}
		return Measurement{}, fmt.Errorf("clock endpoint %s: no sample: %w", url, errors.Join(errs...))
	}
	return best, nil
}

// midpoint is the midpoint rule: sent at t0, answered d, received at t1
// (local times).
func midpoint(t0, t1, d int64) Measurement {
	mid := t0 + (t1-t0)/2
	// The error bound rounds up: the driver's reading lies within it.
	return Measurement{At: mid, Offset: mid - d, Error: (t1 - t0 + 1) / 2}
}

// parseAnswer reads the endpoint's answer: a time a history can hold.
func parseAnswer(b []byte) (int64, error) {
	if len(b) > maxAnswer {
		return 0, fmt.Errorf("answer longer than %d bytes", maxAnswer)
	}
	s := strings.TrimSpace(string(b))
	d, err := strconv.ParseInt(s, 10, 64)
	if err != nil || d <= 0 || d >= history.MaxTime {
		return 0, fmt.Errorf("answer %q: expected Unix nanoseconds above 0 and below 2^62", s)
	}
	return d, nil
}
