package kube_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/chaosbench/chaosbench/internal/launcher"
	"github.com/chaosbench/chaosbench/internal/launcher/kube"
	"github.com/chaosbench/chaosbench/internal/launcher/kubetest"
)

// The tests run this test binary as the member in each Pod: the stand-in
// kubelet starts it with the Pod's command line and the environment of
// its Secret, which names the role.
const roleEnv = "CHAOSBENCH_KUBETEST_ROLE"

func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) == "member" {
		fakeMember(os.Args[1:])
		return
	}
	os.Exit(m.Run())
}

// fakeMember acts as `chaos member` does towards the driver: it reads
// commands from its standard input (each recorded in the file after
// --record; "exit N" exits with status N), and a SIGTERM is a graceful
// close, status 0. It prints to its standard output, the Pod's log.
func fakeMember(args []string) {
	var record string
	for i, a := range args {
		if a == "--record" && i+1 < len(args) {
			record = args[i+1]
		}
	}
	rec, err := os.OpenFile(record, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Println(err)
		os.Exit(9)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	fmt.Println("member started")
	for {
		select {
		case <-sigs:
			fmt.Println("graceful close")
			fmt.Fprintln(rec, "graceful")
			os.Exit(0)
		case l := <-lines:
			fmt.Fprintln(rec, l)
			if n, ok := strings.CutPrefix(l, "exit "); ok {
				code, _ := strconv.Atoi(n)
				os.Exit(code)
			}
		}
	}
}

const ns = "bench"

type rig struct {
	t   *testing.T
	k   *kubetest.Kubelet
	l   *kube.Launcher
	dir string
}

func newRig(t *testing.T, change func(*kube.Config)) *rig {
	t.Helper()
	k := kubetest.New()
	t.Cleanup(func() {
		k.Close()
		if t.Failed() {
			t.Logf("stand-in's events:\n%s", k.Events())
		}
	})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := kube.Config{Client: k.API(), Streams: k, Namespace: ns, Image: "chaosbench:test", Binary: exe,
		Run: "cbtest-1", Deadline: time.Hour, Grace: 5 * time.Second, StartTimeout: 10 * time.Second,
		Logf: t.Logf}
	if change != nil {
		change(&cfg)
	}
	l, err := kube.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Before the folder goes (cleanups run last first): the launcher
	// writes the logs until every Pod has ended.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return &rig{t: t, k: k, l: l, dir: dir}
}

func (r *rig) spec(name string, inc int) launcher.Spec {
	return launcher.Spec{Name: name, Inc: inc, Cell: "sticky.sync-batch.franz",
		Args: []string{"member", "--record", r.record(name, inc)}, Control: true,
		Log: filepath.Join(r.dir, fmt.Sprintf("%s.%d.log", name, inc)), Env: []string{roleEnv + "=member"}}
}

func (r *rig) record(name string, inc int) string {
	return filepath.Join(r.dir, fmt.Sprintf("%s.%d.record", name, inc))
}

func (r *rig) start(name string, inc int) launcher.Process {
	r.t.Helper()
	p, err := r.l.Start(context.Background(), r.spec(name, inc))
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// pid is the local process that stands for the Pod's container.
func (r *rig) pid(p launcher.Process) int {
	r.t.Helper()
	pod, err := r.k.Client.CoreV1().Pods(ns).Get(context.Background(), kube.PodName("cbtest-1", r.spec(p.Name(), p.Inc())), metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	id := pod.Status.ContainerStatuses[0].ContainerID
	pid, err := strconv.Atoi(strings.TrimPrefix(id, "standin://"))
	if err != nil {
		r.t.Fatalf("container id %q", id)
	}
	return pid
}

func waitDone(t *testing.T, p launcher.Process, within time.Duration) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(within):
		t.Fatalf("%s.%d still running after %v", p.Name(), p.Inc(), within)
	}
}

// eventually polls cond until it holds or 10 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within 10s", what)
}

func (r *rig) podGone(p launcher.Process) func() bool {
	return func() bool {
		_, err := r.k.Client.CoreV1().Pods(ns).Get(context.Background(), kube.PodName("cbtest-1", r.spec(p.Name(), p.Inc())), metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}
}

// procState is the state letter of /proc/PID/stat (T: stopped).
func procState(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0]
}

func readFile(t *testing.T, path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// A kill is a SIGKILL inside the Pod: the container's exit code 137 reads
// as status -1 and SIGKILL, and the Pod is deleted after.
func TestKillReadsSIGKILLFromTheTerminatedState(t *testing.T) {
	for _, cut := range []bool{false, true} {
		t.Run(fmt.Sprintf("exec cut off with the container %v", cut), func(t *testing.T) { testKill(t, cut) })
	}
}

func testKill(t *testing.T, cutExecs bool) {
	r := newRig(t, nil)
	r.k.CutExecs = cutExecs
	p := r.start("m1", 0)
	if h := p.(launcher.Placed).Host(); h != kubetest.Node {
		t.Errorf("host %q, want the node %q", h, kubetest.Node)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	if st, sig := p.Exit(); st != -1 || sig != "SIGKILL" {
		t.Errorf("exit %d %q, want -1 SIGKILL", st, sig)
	}
	eventually(t, "pod deleted after its exit", r.podGone(p))
	if err := p.Signal(syscall.SIGKILL); err == nil {
		t.Error("a signal to an ended member: no error")
	}
}

// A Pod of the same name from an earlier run of the command (a sweep's
// runs have cells of the same names) is waited for, not a failure.
func TestStartAgainAfterTheSameName(t *testing.T) {
	r := newRig(t, nil)
	for i := 0; i < 3; i++ {
		p := r.start("m1", 0)
		if err := p.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitDone(t, p, 10*time.Second)
	}
}

// A stop deletes the Pod with the grace: the member gets SIGTERM, closes
// gracefully, exits 0; its output reaches the incarnation's log.
func TestStopIsAGracefulDeletion(t *testing.T) {
	r := newRig(t, nil)
	p := r.start("m2", 0)
	eventually(t, "member's output in the log", func() bool {
		return strings.Contains(readFile(t, r.spec("m2", 0).Log), "member started")
	})
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	if st, sig := p.Exit(); st != 0 || sig != "" {
		t.Errorf("exit %d %q, want 0", st, sig)
	}
	if got := readFile(t, r.record("m2", 0)); got != "graceful\n" {
		t.Errorf("member recorded %q, want its graceful close", got)
	}
	eventually(t, "pod gone", r.podGone(p))
	eventually(t, "the exit noted in the log", func() bool {
		log := readFile(t, r.spec("m2", 0).Log)
		return strings.Contains(log, "graceful close") && strings.Contains(log, "exit code 0 (Completed)")
	})
}

// A pause is SIGSTOP inside the Pod and SIGCONT after; a stop of a paused
// member that is not resumed ends, as on a node, with SIGKILL after the
// grace.
func TestPauseAndTheGrace(t *testing.T) {
	r := newRig(t, func(c *kube.Config) { c.Grace = time.Second })
	p := r.start("m3", 0)
	pid := r.pid(p)
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	eventually(t, "process stopped", func() bool { return procState(t, pid) == "T" })
	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	eventually(t, "process resumed", func() bool { return procState(t, pid) != "T" })
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	eventually(t, "process stopped again", func() bool { return procState(t, pid) == "T" })
	start := time.Now()
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	if st, sig := p.Exit(); st != -1 || sig != "SIGKILL" {
		t.Errorf("exit %d %q, want -1 SIGKILL: a stopped process does not act on SIGTERM", st, sig)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("killed after %v, before the grace of 1s", d)
	}
}

// A control command is a line on the container's standard input; the
// exit status is the container's exit code.
func TestControlAndExitStatus(t *testing.T) {
	r := newRig(t, nil)
	p := r.start("m4", 1)
	if err := p.Control("slow 20ms"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "command received", func() bool { return readFile(t, r.record("m4", 1)) == "slow 20ms\n" })
	if err := p.Control("exit 3"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	if st, sig := p.Exit(); st != 3 || sig != "" {
		t.Errorf("exit %d %q, want 3", st, sig)
	}
}

// The member's secret properties reach it through a Secret the run owns,
// never through its Pod's spec.
func TestEnvironmentThroughASecret(t *testing.T) {
	r := newRig(t, nil)
	p := r.start("m5", 0)
	// The member's SIGTERM handler is set once it has said so.
	eventually(t, "member started", func() bool { return strings.Contains(readFile(t, r.spec("m5", 0).Log), "member started") })
	pod, err := r.k.Client.CoreV1().Pods(ns).Get(context.Background(), kube.PodName("cbtest-1", r.spec("m5", 0)), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf("%+v", pod.Spec)
	if strings.Contains(spec, "member") && strings.Contains(spec, roleEnv) {
		t.Errorf("the environment is in the pod's spec: %s", spec)
	}
	secrets, err := r.k.Client.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: kube.RunSelector("cbtest-1")})
	if err != nil || len(secrets.Items) != 1 {
		t.Fatalf("secrets of the run: %v, %v", secrets, err)
	}
	s := secrets.Items[0]
	if s.StringData[roleEnv] != "member" || len(s.OwnerReferences) != 1 || s.OwnerReferences[0].Name != "chaosbench-cbtest-1" {
		t.Errorf("secret %s: data %v, owners %v", s.Name, s.StringData, s.OwnerReferences)
	}
	// The member runs only with its environment (TestMain).
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	if st, _ := p.Exit(); st != 0 {
		t.Errorf("exit %d", st)
	}
}

// Close (an interrupted driver's cleanup) deletes the run's object, and
// with it every Pod and Secret of the run: nothing keeps running.
func TestCloseDeletesEverything(t *testing.T) {
	r := newRig(t, nil)
	ps := []launcher.Process{r.start("m1", 0), r.start("m2", 0)}
	pids := []int{r.pid(ps[0]), r.pid(ps[1])}
	for _, p := range ps {
		eventually(t, "member started", func() bool { return strings.Contains(readFile(t, r.spec(p.Name(), 0).Log), "member started") })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := r.l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		waitDone(t, p, time.Second)
		if err := syscall.Kill(pids[i], 0); err == nil {
			t.Errorf("%s: process %d still there", p.Name(), pids[i])
		}
	}
	sel := metav1.ListOptions{LabelSelector: kube.RunSelector("cbtest-1")}
	eventually(t, "every object of the run deleted", func() bool {
		pods, _ := r.k.Client.CoreV1().Pods(ns).List(ctx, sel)
		secrets, _ := r.k.Client.CoreV1().Secrets(ns).List(ctx, sel)
		cms, _ := r.k.Client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		return len(pods.Items)+len(secrets.Items)+len(cms.Items) == 0
	})
}

// A driver that dies runs no cleanup: the Pods end at their
// activeDeadlineSeconds all the same.
func TestDeadlineEndsPodsOfADeadDriver(t *testing.T) {
	r := newRig(t, func(c *kube.Config) { c.Deadline = 2 * time.Second })
	start := time.Now()
	p := r.start("m1", 0)
	pid := r.pid(p)
	waitDone(t, p, 10*time.Second)
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("ended after %v, before its deadline", d)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("process %d still there", pid)
	}
	// The member was ended as a stop ends it: SIGTERM, a graceful close.
	if st, sig := p.Exit(); st != 0 || sig != "" {
		t.Errorf("exit %d %q, want 0", st, sig)
	}
	eventually(t, "the log says why", func() bool { return strings.Contains(readFile(t, r.spec("m1", 0).Log), "DeadlineExceeded") })
}

// A Pod whose container cannot run is deleted, and the error says why.
func TestStartFailureSaysWhy(t *testing.T) {
	r := newRig(t, func(c *kube.Config) { c.Binary = "/nonexistent/chaos"; c.StartTimeout = time.Second })
	_, err := r.l.Start(context.Background(), r.spec("m1", 0))
	if err == nil || !strings.Contains(err.Error(), "RunContainerError") || !strings.Contains(err.Error(), "/nonexistent/chaos") {
		t.Fatalf("error %v: want the container's waiting reason", err)
	}
	eventually(t, "pod deleted", func() bool {
		pods, _ := r.k.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		return len(pods.Items) == 0
	})
}

func TestConfigRefused(t *testing.T) {
	k := kubetest.New()
	defer k.Close()
	for _, tc := range []struct {
		change func(*kube.Config)
		want   string
	}{
		{func(c *kube.Config) { c.Image = "" }, "no image"},
		{func(c *kube.Config) { c.Run = "Has_Capitals" }, "run name"},
		{func(c *kube.Config) { c.Run = strings.Repeat("a", 31) }, "at most 30"},
		{func(c *kube.Config) { c.Deadline = 0 }, "deadline"},
		{func(c *kube.Config) { c.Deadline = 25 * time.Hour }, "deadline"},
		{func(c *kube.Config) { c.Results = kube.Volume{Path: "results"} }, "absolute"},
		{func(c *kube.Config) { c.Namespace = "" }, "namespace"},
	} {
		cfg := kube.Config{Client: k.API(), Streams: k, Namespace: ns, Image: "i", Run: "r1", Deadline: time.Hour}
		tc.change(&cfg)
		if _, err := kube.New(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// A namespace that does not exist, or permissions missing, refuse the
// run before anything of it exists.
func TestNewRefused(t *testing.T) {
	k := kubetest.New()
	defer k.Close()
	k.Client.PrependReactor("create", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() == "forbidden" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no"))
		}
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, a.GetNamespace())
	})
	for _, ns := range []string{"missing", "forbidden"} {
		_, err := kube.New(context.Background(), kube.Config{Client: k.API(), Streams: k, Namespace: ns, Image: "i", Run: "r1", Deadline: time.Hour})
		if !errors.Is(err, kube.ErrRefused) || !strings.Contains(err.Error(), "namespace "+ns) {
			t.Errorf("namespace %s: %v", ns, err)
		}
	}
}

// Every Pod is owned by the run's ConfigMap, by its UID.
func TestOwnerReference(t *testing.T) {
	r := newRig(t, nil)
	r.start("m1", 0)
	cm, err := r.k.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), "chaosbench-cbtest-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, _ := r.k.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	for _, p := range pods.Items {
		if len(p.OwnerReferences) != 1 || p.OwnerReferences[0].UID != cm.UID || cm.UID == "" {
			t.Errorf("pod %s: owners %v, want the run's %s", p.Name, p.OwnerReferences, cm.UID)
		}
	}
	if got := cm.Labels[kube.LabelRun]; got != "cbtest-1" {
		t.Errorf("run object's label %q", got)
	}
}
