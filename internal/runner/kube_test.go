package runner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/internal/launcher/kube"
	"github.com/chaosbench/chaosbench/internal/launcher/kubetest"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/runner"
)

// kubeSteps takes every action the Kubernetes launcher acts out itself:
// pause (SIGSTOP and SIGCONT by an exec), kill (SIGKILL by an exec), add,
// restart (a graceful stop: the Pod deleted with its grace), slow (a
// line through the attach), and the end's graceful stops.
const kubeSteps = `
name: kube-steps
seed: 5
duration: 14s
topic: {name: kube-steps, partitions: 6, replication: 1}
keys: {count: 100, format: "k%04d"}
value: {size: 64}
producer: {client: franz, rate: 300}
consumer:
  members: 3
  processing: {cost: 1ms, distribution: fixed}
  session_timeout: 2s
  heartbeat_interval: 300ms
  max_poll_interval: 20s
strategies: [cooperative-sticky]
commit_policies: [sync-batch]
clients: [franz]
broker: {config: {group.initial.rebalance.delay.ms: "0"}}
chaos:
  warmup: 1s
  drain_timeout: 60s
  steps:
    - {at: 2s, action: pause, target: m1, duration: 1s}
    - {at: 4s, action: kill, target: m2}
    - {at: 6s, action: add, count: 1}
    - {at: 8s, action: restart, target: m3}
    - {at: 10s, action: slow, target: m4, duration: 200ms}
`

// TestRunThroughKubernetesLauncher runs a cell whose members are Pods of
// the Kubernetes launcher, on client-go's fake clientset with the
// kubelet's stand-in running each Pod's command (the real chaos member)
// as a local process, against a real broker: every step acts through
// the launcher, the exits the driver records are read from the Pods'
// terminated states, no record is lost, and nothing is left behind.
func TestRunThroughKubernetesLauncher(t *testing.T) {
	kafkatest.Require(t)
	k := kubetest.New()
	defer k.Close()
	l, err := kube.New(context.Background(), kube.Config{Client: k.API(), Streams: k, Namespace: "bench",
		Image: "chaosbench:test", Binary: chaosBinary, Run: "cbrunnertest", Deadline: 10 * time.Minute, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	spec := loadWorkload(t, kubeSteps)
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := runner.Run(ctx, runner.Options{Spec: spec, ResultsDir: t.TempDir(), Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}, Out: &out, Launcher: l})
	if err != nil || !res.Complete {
		t.Fatalf("run: %v, %+v\n%s\nstand-in:\n%s", err, res, out.String(), k.Events())
	}
	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	if err := l.Close(cctx); err != nil {
		t.Error(err)
	}
	cellDir := filepath.Join(res.Dir, res.Cells[0])
	cell, err := runfolder.ReadCell(cellDir)
	if err != nil || !cell.Complete || !cell.DrainComplete {
		t.Fatalf("cell.json: %+v %v", cell, err)
	}
	evs := readHistory(t, runfolder.HistoryDir(cellDir))
	exits := map[string]string{}
	acked, processed := map[[2]int64]bool{}, map[[2]int64]bool{}
	for _, e := range evs {
		switch {
		case e.Kind == history.Chaos && e.Err != "":
			t.Errorf("step %d %s %s failed: %s", e.Step, e.Action, e.Target, e.Err)
		case e.Kind == history.Member && e.Proc == "chaos" && e.State == history.StateSpawned && e.Host != kubetest.Node:
			t.Errorf("%s.%d spawned on host %q, want the Pod's node %q", e.Target, e.TargetInc, e.Host, kubetest.Node)
		case e.Kind == history.Member && e.Proc == "chaos" && e.State == history.StateExited:
			exits[fmt.Sprintf("%s.%d", e.Target, e.TargetInc)] = fmt.Sprintf("%d %s", e.ExitStatus, e.Signal)
		case e.Kind == history.Produced && e.Err == "" && e.Offset >= 0:
			acked[[2]int64{int64(e.Partition), e.Offset}] = true
		case e.Kind == history.Processed:
			processed[[2]int64{int64(e.Partition), e.Offset}] = true
		}
	}
	// The kill's SIGKILL from the container's exit code 137; every other
	// incarnation stopped gracefully (SIGTERM from the Pod's deletion),
	// status 0.
	want := map[string]string{"m1.0": "0 ", "m2.0": "-1 SIGKILL", "m3.0": "0 ", "m3.1": "0 ", "m4.0": "0 "}
	for inc, w := range want {
		if exits[inc] != w {
			t.Errorf("%s exited %q, want %q (all: %v); the timeline:\n%s", inc, exits[inc], w, exits, timeline(evs))
		}
	}
	lost := 0
	for r := range acked {
		if !processed[r] {
			lost++
		}
	}
	if lost > 0 || len(acked) < 3000 {
		t.Errorf("%d of %d acknowledged records never processed", lost, len(acked))
	}
	// The slow command went through the attach, the member's output
	// through the Pod's log, and the launcher's note of the exit after it.
	log, _ := os.ReadFile(filepath.Join(cellDir, "logs", "m4.0.log"))
	if !strings.Contains(string(log), "stalling 200ms (slow)") || !strings.Contains(string(log), "exit code 0 (Completed)") {
		t.Errorf("m4.0's log lacks the stall or the exit:\n%s", log)
	}
	pods, err := k.Client.CoreV1().Pods("bench").List(cctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("pods left: %v %v", pods, err)
	}
}

// TestRunThroughKubernetesLauncherInterrupted interrupts a cell whose
// members are Pods: the driver kills them through the launcher (each
// exit read back as SIGKILL), the launcher's Close deletes the rest of
// the run, and no member process is left.
func TestRunThroughKubernetesLauncherInterrupted(t *testing.T) {
	kafkatest.Require(t)
	k := kubetest.New()
	defer k.Close()
	l, err := kube.New(context.Background(), kube.Config{Client: k.API(), Streams: k, Namespace: "bench",
		Image: "chaosbench:test", Binary: chaosBinary, Run: "cbrunnertest", Deadline: 10 * time.Minute, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	spec := loadWorkload(t, strings.Replace(kubeSteps, "duration: 14s", "duration: 60s", 1))
	results := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	out := &watchedOutput{want: "group formed", then: func() {
		time.AfterFunc(3*time.Second, func() { cancel(errors.New("interrupted by SIGINT")) })
	}}
	res, err := runner.Run(ctx, runner.Options{Spec: spec, ResultsDir: results, Binary: chaosBinary, Warmup: -1,
		Cluster: cluster.Options{Provider: cluster.ProviderLocal, Local: cluster.LocalConfig{HeapMB: 512}}, Out: out, Launcher: l})
	if !errors.Is(err, runner.ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted\n%s\nstand-in:\n%s", err, out.String(), k.Events())
	}
	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	if err := l.Close(cctx); err != nil {
		t.Error(err)
	}
	evs := readHistory(t, runfolder.HistoryDir(filepath.Join(res.Dir, res.Cells[0])))
	exits := 0
	for _, e := range evs {
		if e.Kind == history.Member && e.Proc == "chaos" && e.State == history.StateExited {
			exits++
			if e.Target != "m2" && (e.ExitStatus != -1 || e.Signal != "SIGKILL") {
				t.Errorf("%s.%d exited %d %q, want -1 SIGKILL: the interrupted driver kills", e.Target, e.TargetInc, e.ExitStatus, e.Signal)
			}
		}
	}
	if exits < 3 {
		t.Errorf("%d exits recorded; the timeline:\n%s", exits, timeline(evs))
	}
	if ps := processesMatching(t, "--history-dir "+results); len(ps) > 0 {
		t.Errorf("member processes left running: %q", ps)
	}
	pods, err := k.Client.CoreV1().Pods("bench").List(cctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("pods left: %v %v", pods, err)
	}
}
