package kube

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/chaosbench/chaosbench/internal/launcher"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func goldenConfig() Config {
	return Config{Namespace: "bench", Image: "registry.example/chaosbench:1.0", Binary: defaultBinary,
		PullPolicy: corev1.PullIfNotPresent, Run: "cb20261202t160512-3f9a1c", Deadline: 25 * time.Minute,
		Grace: 30 * time.Second, Results: Volume{Path: "/data/results", Claim: "chaosbench-results"}}
}

var goldenOwner = metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "chaosbench-cb20261202t160512-3f9a1c",
	UID: "0b6f4a52-6a4c-4c5e-9f4e-1d2c3b4a5f60"}

// The Pod specs as the design states them, held to golden files: a
// member with its control channel, its secret environment and the results
// on a claim; one without either, the results from the node.
func TestPodGolden(t *testing.T) {
	args := []string{"member", "--name", "m3", "--inc", "1", "--history-dir", "/data/results/run/cell/history"}
	for _, tc := range []struct {
		file   string
		cfg    func(*Config)
		spec   launcher.Spec
		secret string
	}{
		{"pod-claim.yaml", nil, launcher.Spec{Name: "m3", Inc: 1, Cell: "cooperative-sticky.sync-batch.franz", Args: args, Control: true},
			"cb20261202t160512-3f9a1c-env-1a2b3c4d"},
		{"pod-hostpath.yaml", func(c *Config) { c.Results.Claim = "" },
			launcher.Spec{Name: "m12", Inc: 0, Cell: "sticky.at-least-once.confluent/iter-2", Args: args}, ""},
	} {
		cfg := goldenConfig()
		if tc.cfg != nil {
			tc.cfg(&cfg)
		}
		got, err := yaml.Marshal(Pod(&cfg, goldenOwner, tc.spec, tc.secret))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.file)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
		}
	}
}

// What the design asks of every Pod, field by field, apart from the
// golden files.
func TestPodHasTheDesignsFields(t *testing.T) {
	cfg := goldenConfig()
	s := launcher.Spec{Name: "m1", Inc: 2, Cell: "range.sync-batch.java", Args: []string{"member", "--name", "m1"}, Control: true}
	pod := Pod(&cfg, goldenOwner, s, "sec")
	ps := pod.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %s", ps.RestartPolicy)
	}
	if ps.ShareProcessNamespace == nil || !*ps.ShareProcessNamespace {
		t.Error("shareProcessNamespace not set: the member would be PID 1")
	}
	if ps.ActiveDeadlineSeconds == nil || *ps.ActiveDeadlineSeconds != 1500 {
		t.Errorf("activeDeadlineSeconds %v, want 1500", ps.ActiveDeadlineSeconds)
	}
	if ps.TerminationGracePeriodSeconds == nil || *ps.TerminationGracePeriodSeconds != 30 {
		t.Errorf("terminationGracePeriodSeconds %v, want 30", ps.TerminationGracePeriodSeconds)
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("%d containers", len(ps.Containers))
	}
	c := ps.Containers[0]
	if c.LivenessProbe != nil || c.ReadinessProbe != nil || c.StartupProbe != nil {
		t.Error("a probe: a paused member would be restarted or marked")
	}
	if !reflect.DeepEqual(append(c.Command, c.Args...), []string{defaultBinary, "member", "--name", "m1"}) {
		t.Errorf("command %v %v", c.Command, c.Args)
	}
	if !c.Stdin || c.StdinOnce || c.TTY {
		t.Errorf("stdin %v, stdinOnce %v, tty %v: want the control channel open, not closed by a broken attach", c.Stdin, c.StdinOnce, c.TTY)
	}
	if len(c.Env) != 0 || len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef.Name != "sec" {
		t.Errorf("env %v, envFrom %v: want the environment from the secret only", c.Env, c.EnvFrom)
	}
	want := map[string]string{LabelName: "chaosbench", LabelComponent: "member", LabelRun: cfg.Run,
		LabelCell: "range.sync-batch.java", LabelMember: "m1", LabelIncarnation: "2"}
	if !reflect.DeepEqual(pod.Labels, want) {
		t.Errorf("labels %v, want %v", pod.Labels, want)
	}
	if len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0] != goldenOwner {
		t.Errorf("owners %v", pod.OwnerReferences)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/data/results" || ps.Volumes[0].PersistentVolumeClaim.ClaimName != "chaosbench-results" {
		t.Errorf("results volume %v %v", c.VolumeMounts, ps.Volumes)
	}
}

// Pod names are DNS labels of at most 63 characters, distinct for
// distinct cells, members and incarnations, however long the cell's
// name; label values are valid.
func TestNamesAndLabelValues(t *testing.T) {
	run := "cb20261202t160512-3f9a1c"
	long := "cooperative-sticky.transactional-read-committed.confluent/iter-12" + strings.Repeat("x", 40)
	seen := map[string]string{}
	for _, s := range []launcher.Spec{
		{Name: "m1", Inc: 0, Cell: "sticky.sync-batch.franz"},
		{Name: "m1", Inc: 1, Cell: "sticky.sync-batch.franz"},
		{Name: "m11", Inc: 0, Cell: "sticky.sync-batch.franz"},
		{Name: "m1", Inc: 0, Cell: "sticky.sync-batch.franz/iter-1"},
		{Name: "m1", Inc: 0, Cell: long},
		{Name: "m1", Inc: 0, Cell: long + "y"},
		{Name: "m999", Inc: 999, Cell: long},
	} {
		name := PodName(run, s)
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			t.Errorf("%+v: pod name %q: %v", s, name, errs)
		}
		key := s.Cell + " " + s.Name + " " + string(rune(s.Inc))
		if other, ok := seen[name]; ok {
			t.Errorf("pod name %q for %q and %q", name, key, other)
		}
		seen[name] = key
		for _, v := range memberLabels(run, s) {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				t.Errorf("label value %q: %v", v, errs)
			}
		}
	}
	if a, b := LabelValue(long), LabelValue(long+"y"); a == b {
		t.Errorf("two cells, one label value %q", a)
	}
}

// The exit as the local launcher reports it, from the terminated state.
func TestExitFromTerminated(t *testing.T) {
	for _, tc := range []struct {
		term   corev1.ContainerStateTerminated
		status int
		signal string
	}{
		{corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}, 0, ""},
		{corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}, 2, ""},
		{corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error"}, -1, "SIGKILL"},
		{corev1.ContainerStateTerminated{ExitCode: 143, Reason: "Error"}, -1, "SIGTERM"},
		{corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}, -1, "SIGKILL"},
		{corev1.ContainerStateTerminated{ExitCode: 0, Signal: int32(syscall.SIGKILL)}, -1, "SIGKILL"},
		{corev1.ContainerStateTerminated{ExitCode: 255}, 255, ""},
	} {
		e := exitFromTerminated(&tc.term)
		if e.status != tc.status || e.signal != tc.signal {
			t.Errorf("%+v: %d %q, want %d %q", tc.term, e.status, e.signal, tc.status, tc.signal)
		}
	}
	pod := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "DeadlineExceeded"}}
	if e, ok := exitOf(pod); !ok || e.status != -1 || !strings.Contains(e.reason, "DeadlineExceeded") {
		t.Errorf("a failed pod without a container exit: %+v %v", e, ok)
	}
	if _, ok := exitOf(&corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}); ok {
		t.Error("a running pod has ended")
	}
}

// pod-signal finds the members among a Pod's processes, and only them.
func TestSignalMembers(t *testing.T) {
	proc := t.TempDir()
	for pid, cmdline := range map[string]string{
		"1":    "/pause\x00",
		"7":    "/usr/local/bin/chaos\x00member\x00--name\x00m1\x00",
		"12":   "/usr/local/bin/chaos\x00pod-signal\x00KILL\x00",
		"13":   "java\x00-jar\x00other.jar\x00",
		"14":   "/usr/bin/java\x00-cp\x00/cache/member.jar\x00chaosbench.member.Main\x00--name\x00m2\x00",
		"self": "x",
	} {
		if err := os.MkdirAll(filepath.Join(proc, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, pid, "cmdline"), []byte(cmdline), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sent []int
	pids, err := SignalMembers(proc, 12, syscall.SIGSTOP, func(pid int, sig syscall.Signal) error {
		if sig != syscall.SIGSTOP {
			t.Errorf("signal %v", sig)
		}
		sent = append(sent, pid)
		return nil
	})
	sort.Ints(pids)
	sort.Ints(sent)
	if err != nil || !reflect.DeepEqual(pids, []int{7, 14}) || !reflect.DeepEqual(sent, []int{7, 14}) {
		t.Errorf("pids %v, sent %v, err %v: want 7 and 14 only", pids, sent, err)
	}
	if _, err := SignalMembers(t.TempDir(), 1, syscall.SIGKILL, nil); err == nil || !strings.Contains(err.Error(), "no member") {
		t.Errorf("no member: error %v", err)
	}
	for _, s := range []string{"KILL", "SIGKILL", "stop", "CONT", "TERM"} {
		if _, err := ParseSignal(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseSignal("HUP"); err == nil {
		t.Error("HUP accepted")
	}
}
