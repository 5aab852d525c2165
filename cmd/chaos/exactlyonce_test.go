package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// exactlyOnceCrash is a short transactional run on franz-go with a member
// killed in the middle of the traffic, when it has a transaction open or
// about to open (a batch every few milliseconds).
const exactlyOnceCrash = `
name: eos-crash
seed: 7
duration: 16s
topic: {name: eos-crash, partitions: 6, replication: 1}
keys: {count: 200, format: "k%04d"}
value: {size: 64}
producer: {client: franz, rate: 300}
consumer:
  members: 3
  processing: {cost: 1ms}
  max_poll_records: 50
  session_timeout: 6s
  heartbeat_interval: 1s
  max_poll_interval: 20s
  transaction: {transactional_id: per-incarnation, timeout: 10s}
strategies: [cooperative-sticky]
commit_policies: [transactional]
clients: [franz]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos:
  warmup: 4s
  drain_timeout: 90s
  steps:
    - {at: 8s, action: kill, target: m2}
`

// runExactlyOnce runs exactlyOnceCrash on a client with chaos run (edits
// replaces text of the workload, old then new), analyses it with chaos
// analyze and returns the cell's summary.
func runExactlyOnce(t *testing.T, client string, edits []string, env ...string) *summary.Summary {
	s, _ := runExactlyOnceCell(t, client, edits, env...)
	return s
}

// runExactlyOnceCell is runExactlyOnce, and also returns the cell's folder.
func runExactlyOnceCell(t *testing.T, client string, edits []string, env ...string) (*summary.Summary, string) {
	t.Helper()
	chaos, _ := testBinaries(t)
	dir := t.TempDir()
	w := filepath.Join(dir, "eos-crash.yaml")
	text := strings.Replace(exactlyOnceCrash, "clients: [franz]", "clients: ["+client+"]", 1)
	for i := 0; i+1 < len(edits); i += 2 {
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	if err := os.WriteFile(w, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	results := filepath.Join(dir, "results")
	out, errOut, status := runBin(t, chaos, "run", "--warmup", "0", "--results", results, w)
	if status != 0 {
		t.Fatalf("chaos run: status %d\n%s\n%s", status, out, errOut)
	}
	runs, _ := filepath.Glob(filepath.Join(results, "*-eos-crash"))
	if len(runs) != 1 {
		t.Fatalf("run folders %v", runs)
	}
	aout, aerr, _ := runBin(t, chaos, "analyze", runs[0])
	cell := filepath.Join(runs[0], "cooperative-sticky.transactional."+client)
	b, err := os.ReadFile(filepath.Join(cell, "summary.json"))
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, aout, aerr)
	}
	var s summary.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.ExactlyOnce == nil {
		t.Fatalf("no exactly_once section:\n%s", b)
	}
	t.Logf("run:\n%s\nexactly_once: %+v\nduplicates %d, loss %d", out, *s.ExactlyOnce, s.Duplicates.Count, s.Loss.Lost)
	return &s, cell
}

// The end-to-end proof of the transactional policy: a crash on a real
// broker, and the committed output holds every acknowledged input exactly
// once, while the processing it redid shows as at-least-once duplicates.
func TestExactlyOnceUnderCrash(t *testing.T) {
	kafkatest.Require(t)
	eachClient(t, exactlyOnceUnderCrash)
}

func exactlyOnceUnderCrash(t *testing.T, client string) {
	s := runExactlyOnce(t, client, nil)
	e := s.ExactlyOnce
	if e.Verdict != summary.Valid || !e.Verified || !e.Settled || !e.Complete {
		t.Errorf("exactly_once: verdict %s (%s), verified %v, settled %v, complete %v", e.Verdict, e.Reason, e.Verified, e.Settled, e.Complete)
	}
	if e.OutputDuplicates != 0 || e.LostOutputs != 0 || e.AbortedReads != 0 || e.Reordered != 0 || e.InvisibleCommits != 0 {
		t.Errorf("exactly_once violated: %+v", *e)
	}
	if !s.Cell.DrainComplete || s.Loss.Acknowledged == 0 || e.ReadCommitted != s.Loss.Acknowledged {
		t.Errorf("read_committed %d, acknowledged %d (drain complete %v): every input once", e.ReadCommitted, s.Loss.Acknowledged, s.Cell.DrainComplete)
	}
	if e.Committed == 0 || e.CommitLatency.Count != int(e.Committed) {
		t.Errorf("committed %d, commit latencies %d", e.Committed, e.CommitLatency.Count)
	}
	// What was redone is what the group processed twice: the records of
	// the transactions that did not commit, and nothing else.
	if e.WorkRedone != s.Duplicates.Count {
		t.Errorf("work redone %d, processing duplicates %d: they should be the same records", e.WorkRedone, s.Duplicates.Count)
	}
	if e.ReadUncommitted < e.ReadCommitted {
		t.Errorf("read_uncommitted %d below read_committed %d", e.ReadUncommitted, e.ReadCommitted)
	}
}

// exactlyOnceClients are the clients with the transactional policy;
// each subtest of the Java member skips where Java is missing.
var exactlyOnceClients = []string{"franz", "confluent", "java"}

// eachClient runs f as a subtest per client with transactions.
func eachClient(t *testing.T, f func(t *testing.T, client string)) {
	for _, client := range exactlyOnceClients {
		t.Run(client, func(t *testing.T) {
			if client == "java" {
				kafkatest.RequireJava(t)
			}
			f(t, client)
		})
	}
}

// The mutation check, on each client: the broken test double commits its
// offsets outside its transactions, one transaction late. Under the same
// crash, the committed output shows the inputs the group read again: the
// analysis must call it.
func TestExactlyOnceCatchesOffsetsOutsideTheTransaction(t *testing.T) {
	kafkatest.Require(t)
	eachClient(t, func(t *testing.T, client string) {
		// The double's last transaction's offsets wait for a next one
		// that never comes: its drain cannot complete, and need not wait
		// long.
		s := runExactlyOnce(t, client, []string{"drain_timeout: 90s", "drain_timeout: 20s"}, member.TestDoubleEnv+"="+member.TestDoubleOffsetsOutside)
		e := s.ExactlyOnce
		if e.Verdict != summary.Invalid || e.OutputDuplicates == 0 {
			t.Errorf("the double's output duplicates went unseen: verdict %s, output duplicates %d", e.Verdict, e.OutputDuplicates)
		}
		if s.Verdict != summary.Invalid {
			t.Errorf("cell verdict %s, want invalid", s.Verdict)
		}
	})
}

// A zombie, on each client: a member frozen (SIGSTOP) beyond its session
// timeout with a transaction open resumes and tries to commit. Its
// generation is gone (KIP-447): its transaction must abort, and none of
// its late outputs may be read committed. The transaction stays open
// across batches (commit_interval), so that the freeze lands inside one,
// and its timeout (30 s) outlasts the freeze, so that only the group's
// fencing can end it.
func TestExactlyOnceAgainstAZombie(t *testing.T) {
	kafkatest.Require(t)
	eachClient(t, func(t *testing.T, client string) {
		s, cell := runExactlyOnceCell(t, client, []string{
			"processing: {cost: 1ms}", "processing: {cost: 5ms}",
			"transaction: {transactional_id: per-incarnation, timeout: 10s}", "transaction: {transactional_id: per-incarnation, timeout: 30s, commit_interval: 1s}",
			"- {at: 8s, action: kill, target: m2}", "- {at: 6s, action: pause, target: m2, duration: 9s}",
		})
		e := s.ExactlyOnce
		if e.Verdict != summary.Valid || e.OutputDuplicates != 0 || e.AbortedReads != 0 || e.LostOutputs != 0 {
			t.Errorf("exactly_once under a zombie: verdict %s (%s): %+v", e.Verdict, e.Reason, *e)
		}
		// The zombie's own transactions across the freeze: one was open,
		// and none of them committed.
		across := zombieTransactions(t, cell, "m2")
		if len(across) == 0 {
			t.Errorf("the freeze landed outside every transaction of m2: nothing to fence")
		}
		for txn, end := range across {
			if end == history.TxnCommitted {
				t.Errorf("m2's transaction %d, open across the freeze, committed: the zombie was not fenced", txn)
			}
		}
		t.Logf("m2's transactions open across the freeze: %v", across)
		if e.Aborted == 0 {
			t.Errorf("no transaction aborted: the zombie's late commit went through? %+v", *e)
		}
		if !e.Verified || !e.Settled || !e.Complete || e.ReadCommitted != s.Loss.Acknowledged {
			t.Errorf("read_committed %d, acknowledged %d (verified %v, settled %v, complete %v): every input once",
				e.ReadCommitted, s.Loss.Acknowledged, e.Verified, e.Settled, e.Complete)
		}
	})
}

// zombieTransactions reads a cell's history and returns the transactions
// of the member's first incarnation that were open when it was paused
// (begun before the pause, not ended by then), each with how it ended
// ("committed", "aborted", or "" when its history ends first).
func zombieTransactions(t *testing.T, cell, name string) map[int]string {
	t.Helper()
	m, err := history.OpenDir(filepath.Join(cell, "history"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	paused := false
	open := map[int]bool{}     // begun, not ended, before the pause
	across := map[int]string{} // open at the pause: how each ended
	for {
		e, err := m.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Kind == history.Chaos && e.Action == vocab.ActionPause && e.Target == name && e.Err == "" && !paused:
			paused = true
			for txn := range open {
				across[txn] = ""
			}
		case e.Kind == history.Txn && e.Proc == name && e.Inc == 0:
			ended := e.State == history.TxnCommitted || e.State == history.TxnAborted
			switch {
			case !paused && e.State == history.TxnBegin:
				open[e.Step] = true
			case !paused && ended:
				delete(open, e.Step)
			case paused && ended:
				if _, ok := across[e.Step]; ok {
					across[e.Step] = e.State
				}
			}
		}
	}
	if !paused {
		t.Fatalf("%s: no pause of %s in the history", cell, name)
	}
	return across
}
