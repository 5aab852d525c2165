package member

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/clock"
	"github.com/chaosbench/chaosbench/internal/control"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/historytopic"
	"github.com/chaosbench/chaosbench/internal/probe"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/stamp"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// record is what the member keeps of a fetched record until it is
// processed.
type record struct {
	partition int32
	offset    int64
	key       string
	seq       int64
	producer  string
	intendedT int64
	recordT   int64
}

// setStamp fills the record's producer, seq and intended time from the
// stamp at the front of its value (package stamp); a record without one
// (another producer's) keeps them empty. It reads without allocating (a
// run has one or a few producers, whose names are kept once in names):
// it runs for every record, the harness's own cost that bench-member
// measures.
func (r *record) setStamp(value []byte, names *[]string) {
	st, ok := stamp.Read(value)
	if !ok {
		return
	}
	r.producer = intern(names, st.Producer)
	r.seq = st.Seq
	r.intendedT = st.IntendedT
}

// intern returns the string of b from names, adding it the first time.
func intern(names *[]string, b []byte) string {
	for _, n := range *names {
		if n == string(b) {
			return n
		}
	}
	n := string(b)
	if len(*names) < 64 {
		*names = append(*names, n)
	}
	return n
}

// state is what both client implementations share: the history, the
// processing simulation, and the bookkeeping of owned partitions and
// processed-but-uncommitted offsets.
type state struct {
	cfg  *Config
	hist *history.Writer
	log  io.Writer
	rng  *rand.Rand

	// stall is a pending processing stall (ns), set by the `slow` control
	// command and taken by the next record processed.
	stall atomic.Int64
	// resumed is set when the process gets SIGCONT (the end of a pause
	// step): process's schedule starts again from then.
	resumed atomic.Bool
	// producers are the producer names seen in stamps (setStamp).
	producers []string
	// done is process's scratch map: the next offset of each partition in
	// the batch being processed.
	done map[int32]int64
	// overrun is how much longer than intended the processing of a batch
	// ran, for the probe.
	overrun overrun

	// emit, when set, makes a processed record's output (the
	// transactional policy's): called under mu, right after the record's
	// processed event is appended.
	emit func(r *record)

	mu          sync.Mutex
	owned       map[int32]bool
	uncommitted map[int32]int64 // partition -> next offset to commit
}

func newState(cfg *Config, hist *history.Writer, log io.Writer) *state {
	return &state{
		cfg:         cfg,
		hist:        hist,
		log:         log,
		rng:         rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(cfg.Inc)+1)),
		done:        map[int32]int64{},
		owned:       map[int32]bool{},
		uncommitted: map[int32]int64{},
	}
}

func (s *state) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "%s %s.%d: %s\n", time.Now().UTC().Format("15:04:05.000"), s.cfg.Name, s.cfg.Inc, fmt.Sprintf(format, args...))
}

// append writes an event, logging (not failing on) an error: a member that
// cannot write its history stops at the next flush, which does fail.
func (s *state) append(e *history.Event) {
	if err := s.hist.Append(e); err != nil {
		s.logf("history: %v", err)
	}
}

func (s *state) flush() error { return s.hist.Flush() }

func sortedParts(ps []int32) []int32 {
	out := slices.Clone(ps)
	slices.Sort(out)
	return out
}

// assigned records partitions added to the member.
func (s *state) assigned(ps []int32, gen int32, memberID string) {
	s.mu.Lock()
	for _, p := range ps {
		s.owned[p] = true
	}
	s.mu.Unlock()
	s.append(&history.Event{Kind: history.Assigned, Topic: s.cfg.Topic, Partitions: sortedParts(ps), Gen: gen, MemberID: memberID})
	if err := s.flush(); err != nil {
		s.logf("history flush: %v", err)
	}
}

// removed records partitions taken from the member (revoked or lost) and
// forgets their uncommitted offsets. Its event is written under the lock
// the processing of a record takes (process): no record of a partition
// given up is written after it.
func (s *state) removed(kind history.Kind, ps []int32, gen int32) {
	s.mu.Lock()
	for _, p := range ps {
		delete(s.owned, p)
		delete(s.uncommitted, p)
	}
	s.append(&history.Event{Kind: kind, Topic: s.cfg.Topic, Partitions: sortedParts(ps), Gen: gen})
	s.mu.Unlock()
	if err := s.flush(); err != nil {
		s.logf("history flush: %v", err)
	}
}

func (s *state) owns(p int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owned[p]
}

// filterOwned drops the records of partitions the member no longer owns
// (revoked while the batch was being gathered): they were never processed,
// and their next owner will get them.
func (s *state) filterOwned(batch []record) []record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := batch[:0]
	for _, r := range batch {
		if s.owned[r.partition] {
			out = append(out, r)
		}
	}
	return out
}

// process simulates the processing of a batch, writing a processed event
// after each record, and returns once every event is flushed (the
// write-ahead rule: the caller commits only after this returns). It stops
// early, with what was processed so far recorded, when ctx ends (a
// graceful stop).
//
// A record is processed when its event is written. The events written so
// far are flushed before each record's processing cost is spent (and at
// the end): a crash during the simulated work finds every record processed
// before it on record, and their redelivery counts as the duplicates it
// is. At zero cost a batch has no work in it to crash during, and its
// events reach the file in one write, not one per record: the harness's
// own cost per record, which bench-member measures against a bare
// consumer, stays small beside the client's.
//
// A record is processed only while the member owns its partition: a
// revocation that lands while the batch is processed drops the rest of
// the partition's records (they were never processed; their next owner
// gets them). The ownership check and the record's event are one step
// under the member's lock, the lock removed takes to give partitions up,
// so a revocation comes wholly before a record (which is dropped) or
// after it (its revoked event follows the record's in the file: both are
// appended in that order, and the file receives them in it).
//
// The costs run on a schedule: each record is done when the batch's
// start plus the costs so far is due, not when its own wait ends. A
// wait ends late on a busy host (a 5 ms sleep takes 7 when the cores are
// shared, hundreds when a member waits for a CPU), and the next records'
// waits are shortened by as much, so that a member spends its cost per
// record on average and the capacity it shows is the workload's, not the
// host's. A member frozen by a pause step resumes at its normal pace, not
// with the rest of its batch for free: its SIGCONT starts the schedule
// again from the moment it resumes, and no more lateness than carryOf
// its cost is ever made up. What the schedule did not make up is the
// batch's overrun, which the probe reports.
func (s *state) process(ctx context.Context, batch []record) error {
	start := time.Now()
	var intended time.Duration
	defer func() { s.overrun.add(time.Since(start) - intended) }()
	// The processed offsets join the uncommitted ones once their events
	// are flushed, after the loop: nothing commits while a batch is being
	// processed.
	clear(s.done)
	sched := schedule{due: start, carry: carryOf(s.cfg.Processing.Cost)}
	s.resumed.Store(false)
	for i := range batch {
		r := &batch[i]
		if !s.owns(r.partition) {
			continue
		}
		d := s.cfg.Processing.Sample(s.rng)
		if st := s.stall.Swap(0); st > 0 {
			s.logf("stalling %s (slow)", time.Duration(st))
			d += time.Duration(st)
		}
		intended += d
		if d > 0 {
			if err := s.flush(); err != nil {
				return err
			}
			now := time.Now()
			if s.resumed.Swap(false) {
				sched.restart(now) // resumed after a SIGSTOP: no lateness to make up
			}
			if wait := sched.next(now, d); wait > 0 && !sleep(ctx, wait) {
				break
			}
		}
		s.processed(r)
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.mu.Lock()
	for p, off := range s.done {
		if s.owned[p] { // not given up while the batch was processed
			s.uncommitted[p] = off
		}
	}
	s.mu.Unlock()
	return nil
}

// schedule is process's schedule of processing costs.
type schedule struct {
	due   time.Time     // when the last record is (or was) done
	carry time.Duration // the most lateness made up
}

// next schedules a record costing d at now and returns how long to wait
// for it: until the last record's due time plus d, the last due time
// being at most carry in the past.
func (s *schedule) next(now time.Time, d time.Duration) time.Duration {
	if lo := now.Add(-s.carry); s.due.Before(lo) {
		s.due = lo
	}
	s.due = s.due.Add(d)
	return s.due.Sub(now)
}

// restart starts the schedule again at now, whatever lateness it had: a
// member resumed after a pause.
func (s *schedule) restart(now time.Time) { s.due = now }

// carryOf is the most lateness of the processing schedule the next
// records make up (process): fifty records' cost, at least 20 ms and at
// most a second.
func carryOf(cost time.Duration) time.Duration {
	return min(max(50*cost, 20*time.Millisecond), time.Second)
}

// processed writes r's processed event if the member still owns its
// partition, and notes its offset for the end of the batch (process).
func (s *state) processed(r *record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owned[r.partition] {
		return
	}
	s.append(&history.Event{
		Kind: history.Processed, Partition: r.partition, Offset: r.offset,
		Key: r.key, Seq: r.seq, Producer: r.producer, IntendedT: r.intendedT, RecordT: r.recordT,
	})
	if s.emit != nil {
		s.emit(r)
	}
	s.done[r.partition] = r.offset + 1
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// takeUncommitted returns the processed-but-uncommitted offsets (of the
// given partitions, or all when ps is nil) and clears them.
func (s *state) takeUncommitted(ps []int32) map[int32]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int32]int64{}
	for p, off := range s.uncommitted {
		if ps == nil || slices.Contains(ps, p) {
			out[p] = off
			delete(s.uncommitted, p)
		}
	}
	return out
}

// restoreUncommitted puts back offsets whose commit failed, unless newer
// ones were processed since or the partition is gone.
func (s *state) restoreUncommitted(offs map[int32]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, off := range offs {
		if cur, ok := s.uncommitted[p]; (!ok || cur < off) && s.owned[p] {
			s.uncommitted[p] = off
		}
	}
}

// committed records the outcome of a commit of one partition.
func (s *state) committed(p int32, offset int64, err error, auto bool) {
	e := &history.Event{Kind: history.Committed, Partition: p, Offset: offset, Auto: auto}
	if err != nil {
		e.Err = err.Error()
	}
	s.append(e)
}

// batchOffsets returns, per partition, the offset after the batch's last
// record: what committing the batch commits.
func batchOffsets(batch []record) map[int32]int64 {
	out := map[int32]int64{}
	for _, r := range batch {
		if r.offset+1 > out[r.partition] {
			out[r.partition] = r.offset + 1
		}
	}
	return out
}

// command carries out one of the driver's commands:
//
//	slow <duration>   stall the next record's processing for <duration>
//
// An unknown or malformed command is logged and refused (its error);
// nothing else changes. Both channels take their commands here: the
// standard input (readControl) and the network (internal/control).
func (s *state) command(line string) error {
	f := strings.Fields(line)
	var err error
	switch {
	case len(f) == 0:
		return nil
	case f[0] == "slow" && len(f) == 2:
		d, perr := time.ParseDuration(f[1])
		if perr == nil && d > 0 {
			s.stall.Store(int64(d))
			return nil
		}
		err = fmt.Errorf("%q: expected a positive duration", line)
	default:
		err = fmt.Errorf("unknown command %q", line)
	}
	s.logf("control: %v", err)
	return err
}

// readControl reads the driver's commands from r, one per line, until
// EOF: the standard input's channel, which acknowledges nothing.
func (s *state) readControl(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		s.command(sc.Text())
	}
}

// controlNetwork takes the driver's commands from its control endpoint
// (Config.ControlAddr) until ctx ends, connecting again when the
// connection is lost; a refusal is logged and ends it.
func (s *state) controlNetwork(ctx context.Context) {
	control.Run(ctx, s.cfg.ControlAddr, s.cfg.ControlToken, s.cfg.Name, s.cfg.Inc, s.command, s.logf)
}

// watchResume sets s.resumed each time the process gets SIGCONT (the end
// of a pause step's SIGSTOP), until the stop it returns is called. The
// signal reaches process through a goroutine: a record processed at the
// very moment of the resumption may still see the old schedule, which
// carryOf bounds.
func (s *state) watchResume() (stop func()) {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range cont {
			s.resumed.Store(true)
		}
	}()
	return func() {
		signal.Stop(cont) // no delivery after it returns
		close(cont)
		<-done
	}
}

// Run runs a member until ctx ends (a graceful close: the policy's final
// commit, then leave the group) or the client fails. commands carries the
// driver's commands from the standard input (may be nil; the network
// channel is Config.ControlAddr's); log receives the member's own log. A
// java member does not run here: Run replaces the process with the JVM
// (java.go) and returns only if that fails.
func Run(ctx context.Context, cfg Config, commands io.Reader, log io.Writer) error {
	if err := cfg.validate(); err != nil {
		return &configError{err}
	}
	if cfg.Client == vocab.ClientJava {
		// The JVM takes this process's place and writes the history.
		err := execJava(cfg)
		if te := (*toolError)(nil); errors.As(err, &te) {
			return &configError{err}
		}
		return err
	}
	if err := os.MkdirAll(cfg.HistoryDir, 0o755); err != nil {
		return err
	}
	// The history's lines go to its file, the history topic or both;
	// the topic's client takes the cluster's connection properties.
	var conn []kgo.Opt
	if cfg.HistorySink != runfolder.SinkFile {
		var err error
		if conn, err = cfg.Props.Connection().FranzOpts(); err != nil {
			return &configError{fmt.Errorf("--history-sink %s: %w", cfg.HistorySink, err)}
		}
	}
	hist, err := historytopic.NewWriter(cfg.HistorySink, cfg.HistoryDir, cfg.Name, cfg.Inc, historytopic.Config{
		Bootstrap: cfg.HistoryBootstrap, Opts: conn, Topic: cfg.HistoryTopic, Cell: cfg.Topic})
	if err != nil {
		return err
	}
	if cfg.ClockSkew != 0 {
		hist.Skew(cfg.ClockSkew)
	}
	s := newState(&cfg, hist, log)
	host, _ := os.Hostname()
	s.append(&history.Event{Kind: history.Member, State: history.StateStarted,
		Strategy: cfg.Strategy, Client: cfg.Client, Policy: cfg.Policy, Group: cfg.Group,
		Host: host, PID: os.Getpid()})
	s.measureClock()
	if err := s.flush(); err != nil {
		return err
	}
	if commands != nil {
		go s.readControl(commands)
	}
	if cfg.ControlAddr != "" {
		cctx, stopControl := context.WithCancel(context.Background())
		controlDone := make(chan struct{})
		go func() {
			defer close(controlDone)
			s.controlNetwork(cctx)
		}()
		defer func() { stopControl(); <-controlDone }()
	}
	// The join request follows (docs/history.md: joining).
	s.append(&history.Event{Kind: history.Member, State: history.StateJoining})
	if err := s.flush(); err != nil {
		return err
	}
	// The member's probe (the host check): its own stalls, and how much
	// longer than intended its processing ran.
	pctx, stopProbe := context.WithCancel(context.Background())
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		probe.Run(pctx, probe.Options{Sink: hist, Extra: s.overrun.take})
	}()
	defer s.watchResume()()
	switch cfg.Client {
	case vocab.ClientFranz:
		err = runFranz(ctx, s)
	default:
		err = runConfluent(ctx, s)
	}
	stopProbe()
	<-probeDone
	s.measureClock()
	if cerr := hist.Close(); err == nil {
		err = cerr
	}
	return err
}

// measureClock measures the member's clock against the driver's time
// endpoint, if it has one, and records it (a clock event). A failure is
// logged: the member's history is then read on its own clock.
func (s *state) measureClock() {
	if s.cfg.ClockURL == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := clock.Measure(ctx, s.cfg.ClockURL, s.hist.Now, clock.Samples)
	if err != nil {
		s.logf("clock: %v", err)
		return
	}
	ev := m.Event()
	s.append(&ev)
}

type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// IsConfigError reports whether Run failed on its configuration, before
// starting anything.
func IsConfigError(err error) bool {
	var ce *configError
	return errors.As(err, &ce)
}

// stopping records that the member begins its graceful close.
func (s *state) stopping() {
	s.append(&history.Event{Kind: history.Member, State: history.StateStopping})
	if err := s.flush(); err != nil {
		s.logf("history flush: %v", err)
	}
}

// overrun keeps the longest time a batch's processing ran beyond the
// processing it intended (the sampled costs, a slow step's stall
// included): the part of the gap between two polls that the member did
// not mean, a stall of the host or of the process. The probe takes it
// once a second (probe.Options.Extra).
type overrun struct {
	mu  sync.Mutex
	max time.Duration
	any bool
}

func (o *overrun) add(d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.max = max(o.max, d)
	o.any = true
}

// take returns the longest overrun since the last call, as
// poll_overrun_max_ms (nothing when no batch was processed).
func (o *overrun) take() map[string]float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.any {
		return nil
	}
	v := float64(o.max) / 1e6
	o.max, o.any = 0, false
	return map[string]float64{"poll_overrun_max_ms": v}
}
