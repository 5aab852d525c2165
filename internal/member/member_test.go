package member_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/launcher"
	"github.com/chaosbench/chaosbench/internal/stamp"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

var chaosBinary string

func TestMain(m *testing.M) { kafkatest.MainWithChaos(m, &chaosBinary) }

const partitions = 6

func createTopic(t *testing.T, c cluster.Cluster, topic string) {
	t.Helper()
	adm, err := cluster.NewAdmin(c.Bootstrap(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cluster.CreateTopic(ctx, adm, topic, partitions, 1, nil); err != nil {
		t.Fatal(err)
	}
}

// producer writes records with the headers members expect, at a steady
// rate, and remembers which were acknowledged.
type producer struct {
	cl    *kgo.Client
	topic string
	mu    sync.Mutex
	acked map[[2]int64]stamp.Stamp // (partition, offset): what the record carried
	seqs  map[string]int64
	wg    sync.WaitGroup
}

func newProducer(t *testing.T, bootstrap, topic string) *producer {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &producer{cl: cl, topic: topic, acked: map[[2]int64]stamp.Stamp{}, seqs: map[string]int64{}}
}

func (p *producer) produce(n int) {
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%03d", i%50)
		p.mu.Lock()
		seq := p.seqs[key]
		p.seqs[key]++
		p.mu.Unlock()
		now := time.Now().UnixNano()
		value := make([]byte, 100)
		st := stamp.Stamp{Producer: []byte("producer-0"), Seq: seq, IntendedT: now}
		stamp.Put(value, st)
		r := &kgo.Record{Key: []byte(key), Value: value}
		p.wg.Add(1)
		p.cl.Produce(context.Background(), r, func(r *kgo.Record, err error) {
			defer p.wg.Done()
			if err == nil {
				p.mu.Lock()
				p.acked[[2]int64{int64(r.Partition), r.Offset}] = st
				p.mu.Unlock()
			}
		})
	}
}

func (p *producer) wait() { p.wg.Wait() }

// group starts and restarts member processes of one group.
type group struct {
	t       *testing.T
	dir     string
	args    []string
	mu      sync.Mutex
	procs   map[string]launcher.Process
	incs    map[string]int
	started []launcher.Process
}

func newGroup(t *testing.T, c cluster.Cluster, topic, strategy, client, policy string) *group {
	dir := t.TempDir()
	args := []string{"member", "--bootstrap", c.Bootstrap(), "--group", kafkatest.Name(t, "group"), "--topic", topic,
		"--strategy", strategy, "--client", client, "--policy", policy,
		"--history-dir", filepath.Join(dir, "history"),
		"--session-timeout", "2s", "--heartbeat-interval", "300ms", "--max-poll-records", "50",
		"--processing-cost", "200us", "--auto-commit-interval", "500ms", "--control-stdin"}
	g := &group{t: t, dir: dir, args: args, procs: map[string]launcher.Process{}, incs: map[string]int{}}
	t.Cleanup(g.stopAll)
	return g
}

func (g *group) start(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	inc := g.incs[name]
	g.incs[name]++
	args := append(append([]string(nil), g.args...), "--name", name, "--inc", strconv.Itoa(inc), "--seed", "7")
	p, err := launcher.Local{Binary: chaosBinary}.Start(context.Background(), launcher.Spec{
		Name: name, Inc: inc, Args: args, Log: filepath.Join(g.dir, fmt.Sprintf("%s.%d.log", name, inc)), Control: true})
	if err != nil {
		g.t.Fatal(err)
	}
	g.procs[name] = p
	g.started = append(g.started, p)
}

// waitHistories waits, up to d, until every incarnation started has
// created its history file: one started last, after the others drained
// the topic, would otherwise be stopped before it wrote a line.
func (g *group) waitHistories(d time.Duration) {
	deadline := time.Now().Add(d)
	g.mu.Lock()
	var files []string
	for name, n := range g.incs {
		for inc := range n {
			files = append(files, filepath.Join(g.dir, "history", history.FileName(name, inc)))
		}
	}
	g.mu.Unlock()
	for _, f := range files {
		for {
			if _, err := os.Stat(f); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// waitProcessing waits until the member's current incarnation has
// processed a record, so that the disruption catches it mid-batch: a JVM
// takes a second or more to join, and one killed before would test
// nothing. An incarnation the group gives nothing is disrupted after 20s.
func (g *group) waitProcessing(name string) {
	g.mu.Lock()
	path := filepath.Join(g.dir, "history", history.FileName(name, g.incs[name]-1))
	g.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), `"kind":"processed"`) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	g.t.Logf("%s: nothing processed after 20s", path)
}

func (g *group) kill(name string) {
	g.mu.Lock()
	p := g.procs[name]
	g.mu.Unlock()
	_ = p.Signal(syscall.SIGKILL)
	<-p.Done()
}

// stop stops a member gracefully: SIGTERM, then its final commit and
// LeaveGroup.
func (g *group) stop(name string) {
	g.mu.Lock()
	p := g.procs[name]
	g.mu.Unlock()
	launcher.Stop(p, 20*time.Second)
}

func (g *group) stopAll() {
	g.mu.Lock()
	procs := g.started
	g.mu.Unlock()
	for _, p := range procs {
		launcher.Stop(p, 20*time.Second)
	}
}

func (g *group) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(g.dir, "*.log"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(f), strings.Join(lines, "\n"))
	}
	return b.String()
}

// events reads the group's merged history once its members have stopped:
// every line must be whole.
func (g *group) events(t *testing.T) []history.Event {
	t.Helper()
	return g.read(t, false)
}

// eventsSoFar reads the history of running members: a last line still
// being written (a write(2) in progress, seen half done) is skipped, as
// the next read will have it whole.
func (g *group) eventsSoFar(t *testing.T) []history.Event {
	t.Helper()
	return g.read(t, true)
}

func (g *group) read(t *testing.T, running bool) []history.Event {
	t.Helper()
	m, err := history.OpenDir(filepath.Join(g.dir, "history"))
	if err != nil {
		t.Fatalf("%v\n%s", err, g.logs())
	}
	defer m.Close()
	var evs []history.Event
	for {
		e, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if le, ok := errors.AsType[*history.LineError](err); ok && le.Truncated && running {
			continue
		}
		if err != nil {
			t.Fatalf("history: %v", err)
		}
		c := *e
		c.Partitions = append([]int32(nil), e.Partitions...)
		evs = append(evs, c)
	}
	return evs
}

// waitProcessed waits until every acknowledged record has a processed event.
func (g *group) waitProcessed(t *testing.T, p *producer, timeout time.Duration) []history.Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := g.eventsSoFar(t)
		processed := map[[2]int64]bool{}
		for _, e := range evs {
			if e.Kind == history.Processed {
				processed[[2]int64{int64(e.Partition), e.Offset}] = true
			}
		}
		p.mu.Lock()
		missing := 0
		for k := range p.acked {
			if !processed[k] {
				missing++
			}
		}
		total := len(p.acked)
		p.mu.Unlock()
		if missing == 0 {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d acknowledged records never processed after %s\n%s", missing, total, timeout, g.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkWriteAhead checks that every successful commit of offset o on
// partition p came after a processed event for (p, o-1): no committed
// offset ran ahead of processing. With clientAhead, the client's own
// auto-commits may (Kafka's Java client on the consumer protocol, see
// docs/members.md): those are counted and logged, the member's own
// commits still checked.
func checkWriteAhead(t *testing.T, evs []history.Event, clientAhead bool) (commits int) {
	t.Helper()
	processedAt := map[[2]int64]int64{} // first processed time
	violations, byClient := 0, 0
	for _, e := range evs {
		switch e.Kind {
		case history.Processed:
			k := [2]int64{int64(e.Partition), e.Offset}
			if _, ok := processedAt[k]; !ok {
				processedAt[k] = e.T
			}
		case history.Committed:
			if e.Err != "" {
				continue
			}
			commits++
			// Offset 0 covers no record: Java's auto-commit commits a
			// partition's starting position before anything is processed.
			if _, ok := processedAt[[2]int64{int64(e.Partition), e.Offset - 1}]; !ok && e.Offset > 0 {
				if clientAhead && e.Auto {
					byClient++
					t.Logf("%s.%d: the client auto-committed partition %d offset %d before offset %d was processed",
						e.Proc, e.Inc, e.Partition, e.Offset, e.Offset-1)
					continue
				}
				violations++
				if violations <= 5 {
					t.Errorf("%s.%d committed partition %d offset %d at %d before offset %d was processed",
						e.Proc, e.Inc, e.Partition, e.Offset, e.T, e.Offset-1)
				}
			}
		}
	}
	if violations > 0 {
		t.Errorf("%d commits ran ahead of processing", violations)
	}
	if byClient > 0 {
		t.Logf("%d of the client's auto-commits ran ahead of processing", byClient)
	}
	return commits
}

// TestKillsNeverCommitAheadOfProcessing kills members mid-batch over and
// over under each at-least-once policy and both clients, then checks from
// the history that no committed offset ran ahead of a processed event and
// that every acknowledged record was processed.
func TestKillsNeverCommitAheadOfProcessing(t *testing.T) {
	churn(t, []churnCase{
		{vocab.CooperativeSticky, vocab.ClientConfluent, vocab.PolicyAutoAfterProcess},
		{vocab.Range, vocab.ClientConfluent, vocab.PolicySyncBatch},
		{vocab.RoundRobin, vocab.ClientConfluent, vocab.PolicyAsyncBatch},
		{vocab.CooperativeSticky, vocab.ClientConfluent, vocab.PolicyAsyncSyncOnRevoke},
		{vocab.Sticky, vocab.ClientFranz, vocab.PolicyAutoAfterProcess},
		{vocab.Sticky, vocab.ClientFranz, vocab.PolicySyncBatch},
		{vocab.CooperativeSticky, vocab.ClientFranz, vocab.PolicyAsyncBatch},
		{vocab.Range, vocab.ClientFranz, vocab.PolicyAsyncSyncOnRevoke},
		{vocab.CooperativeSticky, vocab.ClientJava, vocab.PolicyAutoAfterProcess},
		{vocab.Range, vocab.ClientJava, vocab.PolicySyncBatch},
		{vocab.ConsumerUniform, vocab.ClientJava, vocab.PolicyAsyncBatch},
		{vocab.Sticky, vocab.ClientJava, vocab.PolicyAsyncSyncOnRevoke},
	}, (*group).kill)
}

// TestStopsNeverCommitAheadOfProcessing stops members gracefully (SIGTERM:
// the batch in hand is cut short, then the policy's final commit) over and
// over: the final commit must not cover records the batch never reached.
func TestStopsNeverCommitAheadOfProcessing(t *testing.T) {
	churn(t, []churnCase{
		{vocab.CooperativeSticky, vocab.ClientConfluent, vocab.PolicyAutoAfterProcess},
		{vocab.CooperativeSticky, vocab.ClientFranz, vocab.PolicyAutoAfterProcess},
		{vocab.Range, vocab.ClientFranz, vocab.PolicySyncBatch},
		{vocab.CooperativeSticky, vocab.ClientJava, vocab.PolicyAutoAfterProcess},
		{vocab.ConsumerRange, vocab.ClientJava, vocab.PolicyAutoAfterProcess},
		{vocab.RoundRobin, vocab.ClientJava, vocab.PolicySyncBatch},
	}, (*group).stop)
}

type churnCase struct{ strategy, client, policy string }

// checkStamps checks that every processed event carries the producer, seq
// and intended time of the record at its offset, as the member read them
// from the record's stamp.
func checkStamps(t *testing.T, p *producer, evs []history.Event) {
	t.Helper()
	bad := 0
	for _, e := range evs {
		if e.Kind != history.Processed {
			continue
		}
		st, ok := p.acked[[2]int64{int64(e.Partition), e.Offset}]
		if !ok || e.Producer != string(st.Producer) || e.Seq != st.Seq || e.IntendedT != st.IntendedT {
			if bad++; bad <= 3 {
				t.Errorf("%s.%d processed %d/%d as producer %q seq %d intended %d; the record carried %q %d %d (acked %v)",
					e.Proc, e.Inc, e.Partition, e.Offset, e.Producer, e.Seq, e.IntendedT, st.Producer, st.Seq, st.IntendedT, ok)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d processed events do not carry their record's stamp", bad)
	}
}

// churn runs each case's group of three while records flow, disrupting a
// random member every 700 ms and bringing it back as its next
// incarnation, then checks the history.
func churn(t *testing.T, cases []churnCase, disrupt func(*group, string)) {
	c := kafkatest.Shared(t)
	for _, tc := range cases {
		t.Run(tc.policy+"/"+tc.client+"/"+tc.strategy, func(t *testing.T) {
			if tc.client == vocab.ClientJava {
				kafkatest.RequireJava(t)
			}
			t.Parallel()
			topic := kafkatest.Name(t, "topic")
			createTopic(t, c, topic)
			g := newGroup(t, c, topic, tc.strategy, tc.client, tc.policy)
			for _, n := range []string{"m1", "m2", "m3"} {
				g.start(n)
			}
			p := newProducer(t, c.Bootstrap(), topic)
			r := rand.New(rand.NewPCG(42, 1))
			// Records flow for 2s, and on while the disruptions last (a
			// slow-starting member waits to be caught processing).
			done := make(chan struct{})
			var disrupted atomic.Bool
			go func() {
				defer close(done)
				for i := 0; i < 20 || !disrupted.Load(); i++ {
					p.produce(150)
					time.Sleep(100 * time.Millisecond)
				}
			}()
			disruptions := 0
			for i := 0; i < 4; i++ {
				time.Sleep(700 * time.Millisecond)
				name := fmt.Sprintf("m%d", 1+r.IntN(3))
				g.waitProcessing(name)
				disrupt(g, name)
				disruptions++
				g.start(name)
			}
			disrupted.Store(true)
			<-done
			p.wait()
			evs := g.waitProcessed(t, p, 90*time.Second)
			g.waitHistories(30 * time.Second)
			g.stopAll()
			evs = g.events(t)
			// Kafka's Java client on the consumer protocol can auto-commit
			// the positions of a batch that poll is returning, before the
			// member processes it (docs/members.md).
			clientAhead := tc.client == vocab.ClientJava && vocab.IsConsumerProtocol(tc.strategy) &&
				(tc.policy == vocab.PolicyAuto || tc.policy == vocab.PolicyAutoAfterProcess)
			commits := checkWriteAhead(t, evs, clientAhead)
			checkStamps(t, p, evs)
			if commits == 0 {
				t.Errorf("no successful commits recorded\n%s", g.logs())
			}
			incs := map[string]bool{}
			for _, e := range evs {
				incs[fmt.Sprintf("%s.%d", e.Proc, e.Inc)] = true
			}
			if len(incs) != 3+disruptions {
				t.Errorf("histories of %d incarnations, want %d: %v", len(incs), 3+disruptions, keys(incs))
			}
			counts := map[history.Kind]int{}
			for _, e := range evs {
				counts[e.Kind]++
			}
			t.Logf("%d acked, %d events %v, %d commits, %d disruptions", len(p.acked), len(evs), counts, commits, disruptions)
		})
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
