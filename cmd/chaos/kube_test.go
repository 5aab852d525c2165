package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/chaosbench/chaosbench/internal/cli"
)

// chaos run --launcher kubernetes refuses, with status 2 and before
// anything is written, what cannot run: no external cluster the Pods
// reach (none given, the local or docker provider, a loopback address),
// no image, no results volume, no API server answering; and the
// launcher's flags without it.
func TestKubernetesLauncherRefuses(t *testing.T) {
	chaos, _ := testBinaries(t)
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	// An API server that is not there: a port nothing listens on.
	kubeconfig := filepath.Join(dir, "kubeconfig")
	err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: gone
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: gone
  context: {cluster: gone, user: u, namespace: bench}
current-context: gone
users:
- name: u
  user: {token: not-a-secret}
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	w := "../../workloads/default.yaml"
	kube := []string{"run", "--launcher", "kubernetes", "--results", results, w}
	ready := with(kube, "--bootstrap", "kafka.bench.svc:9092", "--kube-image", "chaosbench:test", "--kube-results-hostpath")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"nothing given", kube, []string{"no --bootstrap (or KAFKA_BOOTSTRAP)", "--kube-image: required", "--kube-results-claim or --kube-results-hostpath: required"}},
		{"local provider", with(ready, "--provider", "local"), []string{"--provider local", "external cluster"}},
		{"loopback", with(kube, "--bootstrap", "127.0.0.1:9092", "--kube-image", "i", "--kube-results-claim", "c"), []string{"127.0.0.1 is a loopback address"}},
		{"two volumes", with(ready, "--kube-results-claim", "c"), []string{"give one"}},
		{"no launcher of the name", []string{"run", "--launcher", "nomad", w}, []string{`--launcher "nomad": expected local or kubernetes`}},
		{"its flags without it", []string{"run", "--kube-image", "i", w}, []string{"--kube-image: only with --launcher kubernetes"}},
		{"clock endpoint everywhere", with(ready, "--clock-listen", "0.0.0.0:0"), []string{"not one that listens everywhere"}},
		{"clock endpoint without a port", with(ready, "--clock-listen", "10.1.2.3"), []string{"expected HOST:PORT"}},
		{"a sweep too", []string{"sweep", "--launcher", "kubernetes", "--vary", "members=1,2", "--results", results, "../../workloads/capacity.yaml"}, []string{"no --bootstrap (or KAFKA_BOOTSTRAP)", "--kube-image: required"}},
		{"a sweep with no cluster reachable", []string{"sweep", "--launcher", "kubernetes", "--vary", "members=1,2", "--results", results, "--bootstrap", "kafka.bench.svc:9092", "--kube-image", "i", "--kube-results-claim", "c", "--kubeconfig", kubeconfig, "../../workloads/capacity.yaml"}, []string{"no Kubernetes cluster reachable"}},
		{"no cluster reachable", append(append([]string{}, ready...), "--kubeconfig", kubeconfig), []string{"no Kubernetes cluster reachable", kubeconfig, "https://127.0.0.1:1"}},
		{"no kubeconfig", append(append([]string{}, ready...), "--kubeconfig", filepath.Join(dir, "missing")), []string{"no Kubernetes cluster reachable", filepath.Join(dir, "missing")}},
	} {
		_, errOut, status := runBinEnv(t, []string{"KAFKA_BOOTSTRAP="}, chaos, tc.args...)
		if status != 2 {
			t.Errorf("%s: status %d, want 2\n%s", tc.name, status, errOut)
		}
		for _, want := range tc.want {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: no %q in\n%s", tc.name, want, errOut)
			}
		}
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Errorf("results folder written by a refused run: %v", err)
	}
}

// runBinEnv is runBin with env added to the test's environment.
func runBinEnv(t *testing.T, env []string, bin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		status = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), status
}

// with is base and more, base unchanged.
func with(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}

// The Pods' default deadline is the longest a cell can run: its traffic,
// its drain timeout, and 10 minutes.
func TestKubeDeadline(t *testing.T) {
	spec, err := cli.LoadWorkload("../../workloads/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	end, _ := spec.TrafficEnd()
	d, err := kubeDeadline(spec, 0)
	if want := end + spec.Chaos.DrainTimeout + 10*time.Minute; err != nil || d != want {
		t.Errorf("default deadline %v %v, want %v", d, err, want)
	}
	if d, err := kubeDeadline(spec, 2*time.Hour); err != nil || d != 2*time.Hour {
		t.Errorf("--kube-deadline 2h: %v %v", d, err)
	}
	for bootstrap, want := range map[string]string{"127.0.0.1:9092": "127.0.0.1", "kafka:9092,localhost:9093": "localhost",
		"[::1]:9092": "::1", "kafka-0.kafka:9092,10.0.0.7:9092": ""} {
		if got := loopback(bootstrap); got != want {
			t.Errorf("loopback(%q) = %q, want %q", bootstrap, got, want)
		}
	}
	if name := kubeRunName(time.Date(2026, 12, 2, 16, 5, 12, 0, time.UTC)); !strings.HasPrefix(name, "cb20261202t160512-") || len(name) > 30 {
		t.Errorf("run name %q", name)
	}
}

// A dry run with --launcher kubernetes prints the first member's Pod as
// YAML that a cluster can check, the design's fields in it; it needs no
// cluster.
func TestKubernetesDryRunPrintsThePod(t *testing.T) {
	chaos, _ := testBinaries(t)
	out, errOut, status := runBinEnv(t, []string{"KAFKA_BOOTSTRAP="}, chaos, "run", "--dry-run", "--launcher", "kubernetes",
		"--bootstrap", "kafka.bench.svc:9092", "--kube-image", "chaosbench:dev", "--kube-results-claim", "results",
		"--kube-namespace", "bench", "--kubeconfig", "/nonexistent", "../../workloads/default.yaml")
	if status != 0 {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	_, doc, ok := strings.Cut(out, "\n---\n")
	if !ok {
		t.Fatalf("no YAML document after the plan:\n%s", out)
	}
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict([]byte(doc), &pod); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	c := pod.Spec.Containers[0]
	if pod.Kind != "Pod" || pod.Namespace != "bench" || pod.Spec.RestartPolicy != corev1.RestartPolicyNever ||
		pod.Spec.ShareProcessNamespace == nil || !*pod.Spec.ShareProcessNamespace || c.Image != "chaosbench:dev" ||
		c.Args[0] != "member" || !c.Stdin || pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "results" {
		t.Errorf("pod:\n%s", doc)
	}
	if !strings.Contains(strings.Join(c.Args, " "), "--bootstrap=kafka.bench.svc:9092") {
		t.Errorf("member args %v", c.Args)
	}
}
