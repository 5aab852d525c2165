package runner_test

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

const netKilled = `
name: net-killed
seed: 5
duration: 40s
topic: {name: net-killed, partitions: 4, replication: 1}
producer: {rate: 100}
consumer:
  members: 2
  session_timeout: 3s
  heartbeat_interval: 300ms
strategies: [range]
commit_policies: [sync-batch]
clients: [franz]
chaos:
  steps:
    - {at: 3s, action: disconnect, target: m1, duration: 30s}
`

// A network step (on a member, or on a broker's links to the others) is
// refused before the run on a cluster the harness does not start, with
// exit status 2 and the reason, and nothing written.
func TestNetworkStepRefusedOnExternalCluster(t *testing.T) {
	kafkatest.Require(t) // the chaos binary
	for _, tc := range []struct{ name, workload, why string }{
		{"net-killed", netKilled, "need the local provider"},
		{"broker-cut-killed", brokerCutKilled, "brokers reach each other directly"},
	} {
		wl := filepath.Join(t.TempDir(), tc.name+".yaml")
		if err := os.WriteFile(wl, []byte(tc.workload), 0o644); err != nil {
			t.Fatal(err)
		}
		results := t.TempDir()
		cmd := exec.Command(chaosBinary, "run", "--bootstrap", "127.0.0.1:1", "--results", results, wl)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.why) {
			t.Fatalf("%s: got %v, stderr:\n%s\nwant exit status 2 naming why (%q)", tc.name, err, stderr.String(), tc.why)
		}
		if entries, _ := os.ReadDir(results); len(entries) != 0 {
			t.Errorf("%s: a refused run wrote %d entries under the results folder", tc.name, len(entries))
		}
	}
}

// A driver killed (SIGKILL) in the middle of a network fault leaves
// nothing behind: its members and brokers end with it (parent-death
// signal), and nothing listens any more on the brokers' ports nor on the
// proxies' (they were the driver's own), so the next run starts on
// fresh ports and configuration with nothing to clean.
func TestRunKilledMidFaultLeavesNothing(t *testing.T) {
	kafkatest.Require(t)
	wl := filepath.Join(t.TempDir(), "net-killed.yaml")
	if err := os.WriteFile(wl, []byte(netKilled), 0o644); err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	cmd := exec.Command(chaosBinary, "run", "--provider", "local", "--warmup", "0s", "--results", results, wl)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The cluster's temporary folder, which a killed driver cannot remove,
	// goes where the test removes it.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	// Wait for the fault: the disconnect step in the driver's history.
	var cellDir string
	deadline := time.Now().Add(3 * time.Minute)
	for cellDir == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no disconnect step within 3 minutes:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
		files, _ := filepath.Glob(filepath.Join(results, "*", "*", "history", "chaos.0.jsonl"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(`"action":"disconnect"`)) {
				cellDir = filepath.Dir(filepath.Dir(f))
			}
		}
	}
	cell, err := runfolder.ReadCell(cellDir)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	var addrs []string
	for _, n := range cell.Cluster.Nodes {
		pids = append(pids, n.PID)
		addrs = append(addrs, n.Address)
	}
	for _, b := range cell.Cluster.NetPaths {
		addrs = append(addrs, strings.Split(b, ",")...)
	}
	if len(cell.Cluster.NetPaths) != 3 {
		t.Fatalf("cell.json's network paths: %v, want the producer's, m1's and m2's", cell.Cluster.NetPaths)
	}
	evs, err := history.ReadFile(filepath.Join(runfolder.HistoryDir(cellDir), "chaos.0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Kind == history.Member && e.State == history.StateSpawned && e.PID > 0 {
			pids = append(pids, e.PID)
		}
	}
	if len(pids) < len(cell.Cluster.Nodes)+2 {
		t.Fatalf("pids %v: want the brokers' and both members'", pids)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true

	gone := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(gone) {
				t.Fatalf("process %d still runs 30 s after the driver was killed (pids %v)", pid, pids)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after the driver was killed", a)
		}
	}
}

const brokerCutKilled = `
name: broker-cut-killed
seed: 6
duration: 60s
topic: {name: broker-cut-killed, partitions: 3, replication: 3}
producer: {rate: 50}
consumer:
  members: 1
  session_timeout: 10s
  heartbeat_interval: 1s
strategies: [range]
commit_policies: [sync-batch]
clients: [franz]
broker: {brokers: 3}
chaos:
  steps:
    - {at: 2s, action: disconnect, broker: 1, duration: 50s}
`

// A driver killed (SIGKILL) while a broker is cut off from the others
// leaves nothing behind either: the brokers end with it, and nothing
// listens any more on their ports nor on their links' proxies (the
// driver's own), so the next run starts on fresh ports with every
// broker reaching the others.
func TestRunKilledMidBrokerCutLeavesNothing(t *testing.T) {
	kafkatest.Require(t)
	wl := filepath.Join(t.TempDir(), "broker-cut-killed.yaml")
	if err := os.WriteFile(wl, []byte(brokerCutKilled), 0o644); err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	cmd := exec.Command(chaosBinary, "run", "--provider", "local", "--warmup", "0s", "--results", results, wl)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	var cellDir string
	deadline := time.Now().Add(3 * time.Minute)
	for cellDir == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no cut of broker 1 within 3 minutes:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
		files, _ := filepath.Glob(filepath.Join(results, "*", "*", "history", "chaos.0.jsonl"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(`"target":"broker-1"`)) {
				cellDir = filepath.Dir(filepath.Dir(f))
			}
		}
	}
	cell, err := runfolder.ReadCell(cellDir)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	var addrs []string
	for _, n := range cell.Cluster.Nodes {
		pids = append(pids, n.PID)
		addrs = append(addrs, n.Address)
	}
	if len(pids) != 3 || len(cell.Cluster.BrokerLinks) != 6 {
		t.Fatalf("cell.json: nodes %v, broker links %v: want three brokers and the six links between them", cell.Cluster.Nodes, cell.Cluster.BrokerLinks)
	}
	for _, b := range cell.Cluster.BrokerLinks {
		addrs = append(addrs, strings.Split(b, ",")...)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true
	gone := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(gone) {
				t.Fatalf("broker process %d still runs 30 s after the driver was killed (pids %v)", pid, pids)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after the driver was killed", a)
		}
	}
}
