package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/clock"
	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/launcher"
	"github.com/chaosbench/chaosbench/internal/launcher/kube"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/runner"
	"github.com/chaosbench/chaosbench/workloads"
)

// The launchers of --launcher.
const (
	launcherLocal      = "local"
	launcherKubernetes = "kubernetes"
)

// launcherFlags say where the members run: run's, bench's and sweep's.
type launcherFlags struct {
	launcher    string
	kube        kube.Flags
	clockListen string
}

func (f *launcherFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.launcher, "launcher", launcherLocal, "where members run: local (child processes of this host) or kubernetes (a Pod per incarnation, against an external cluster: docs/kubernetes.md)")
	f.kube.Register(fs)
	fs.StringVar(&f.clockListen, "clock-listen", "", "HOST:PORT the driver's time endpoint listens on, which every process measures its clock against; the control endpoint (--control network) listens on the same host (default 127.0.0.1:0; a Kubernetes run gives an address of this host that the Pods reach)")
}

// kubernetes reports whether the members run as Pods.
func (f *launcherFlags) kubernetes() bool { return f.launcher == launcherKubernetes }

// check refuses, before anything starts, what checkLauncher and
// checkClockListen refuse.
func (f *launcherFlags) check(fs *flag.FlagSet, c *cluster.Flags) error {
	if err := f.checkLauncher(fs, c); err != nil {
		return err
	}
	return checkClockListen(f.clockListen)
}

// checkLauncher refuses, before anything starts, a launcher that does not
// exist, the Kubernetes launcher's flags without it, and a Kubernetes run
// without what it needs: an external cluster that Pods can reach (a
// local or docker provider's brokers are this host's), an image, the
// results folder mounted in the Pods.
func (f *launcherFlags) checkLauncher(fs *flag.FlagSet, c *cluster.Flags) error {
	switch f.launcher {
	case launcherLocal:
		for _, n := range kube.Names {
			if cli.Given(fs, n) {
				return fmt.Errorf("--%s: only with --launcher kubernetes", n)
			}
		}
		return nil
	case launcherKubernetes:
	default:
		return fmt.Errorf("--launcher %q: expected %s or %s", f.launcher, launcherLocal, launcherKubernetes)
	}
	var errs []error
	bootstrap := c.Bootstrap
	if bootstrap == "" {
		bootstrap = os.Getenv("KAFKA_BOOTSTRAP")
	}
	switch {
	case c.Provider == cluster.ProviderLocal || c.Provider == cluster.ProviderDocker:
		errs = append(errs, fmt.Errorf("--launcher kubernetes with --provider %s: the Pods cannot reach brokers that this host runs; a Kubernetes run uses an external cluster: --bootstrap (or KAFKA_BOOTSTRAP) and its client properties (-X, -F), such as one Strimzi manages", c.Provider))
	case bootstrap == "":
		errs = append(errs, errors.New("--launcher kubernetes: no --bootstrap (or KAFKA_BOOTSTRAP): a Kubernetes run uses an external cluster that the Pods reach at that address, with its client properties (-X, -F); it does not start local brokers"))
	default:
		if host := loopback(bootstrap); host != "" {
			errs = append(errs, fmt.Errorf("--launcher kubernetes: --bootstrap %s: %s is a loopback address, which no Pod reaches: give the brokers' address as the cluster sees it", bootstrap, host))
		}
	}
	if err := f.kube.Check(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// loopback returns the first host of a bootstrap list that is a loopback
// address.
func loopback(bootstrap string) string {
	for _, hp := range strings.Split(bootstrap, ",") {
		host, _, err := net.SplitHostPort(strings.TrimSpace(hp))
		if err != nil {
			host = strings.TrimSpace(hp)
		}
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return host
		}
	}
	return ""
}

// start connects to the Kubernetes cluster (exit 2 when none answers or
// it refuses the run), creates the run's owner object and returns the
// launcher, with the Pods' deadline the longest any of specs' cells can
// run, and the results folder mounted at its absolute path, which the
// caller must use. The function it returns deletes everything the run
// created.
func (f *launcherFlags) start(ctx context.Context, specs []*workloads.Spec, resultsDir string) (*kube.Launcher, string, func(), error) {
	cfg, err := f.kube.Connect(ctx)
	if err != nil {
		return nil, "", nil, cli.Usage(fmt.Errorf("--launcher kubernetes: %w", err))
	}
	for _, spec := range specs {
		d, err := kubeDeadline(spec, f.kube.Deadline)
		if err != nil {
			return nil, "", nil, cli.Usage(err)
		}
		cfg.Deadline = max(cfg.Deadline, d)
	}
	results, err := filepath.Abs(resultsDir)
	if err != nil {
		return nil, "", nil, err
	}
	// The members are given the run folder's paths: absolute, as the
	// Pods mount it.
	cfg.Results = kube.Volume{Path: results, Claim: f.kube.ResultsClaim}
	cfg.Run = kubeRunName(time.Now())
	cfg.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "kubernetes: "+format+"\n", args...) }
	l, err := kube.New(ctx, cfg)
	if errors.Is(err, kube.ErrRefused) {
		return nil, "", nil, cli.Usage(fmt.Errorf("--launcher kubernetes: %w", err))
	}
	if err != nil {
		return nil, "", nil, err
	}
	// A hostPath volume's folder must exist when a Pod starts.
	if err := os.MkdirAll(results, 0o755); err != nil {
		_ = l.Close(ctx)
		return nil, "", nil, err
	}
	if f.clockListen == "" {
		fmt.Fprintln(os.Stderr, "warning: --launcher kubernetes without --clock-listen: the members' Pods cannot reach the driver's time endpoint on this host's loopback, and their clocks are taken as the driver's (docs/kubernetes.md)")
	}
	fmt.Printf("launcher: kubernetes, namespace %s, run %s, image %s, pod deadline %s (deleting configmap chaosbench-%s deletes everything the run started)\n",
		l.Namespace(), l.Run(), cfg.Image, cfg.Deadline, l.Run())
	return l, results, func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := l.Close(cctx); err != nil {
			fmt.Fprintf(os.Stderr, "kubernetes: %v\n", err)
		}
	}, nil
}

// kubeDeadline is the Pods' activeDeadlineSeconds: the flag's, or the
// longest a cell can run (its traffic and drain timeout) and 10 minutes
// for the group's start, the settling and the stops.
func kubeDeadline(spec *workloads.Spec, flagged time.Duration) (time.Duration, error) {
	if flagged > 0 {
		return flagged, nil
	}
	end, ok := spec.TrafficEnd()
	if !ok {
		return 0, fmt.Errorf("--kube-deadline: required for %s: its traffic has no end known in advance", spec.File)
	}
	d := (end + spec.Chaos.DrainTimeout + 10*time.Minute).Round(time.Second)
	if d > kube.MaxDeadline {
		return 0, fmt.Errorf("%s: a cell may run %v, past the Pods' longest deadline (%v)", spec.File, d, kube.MaxDeadline)
	}
	return d, nil
}

// kubeRunName names a run's Kubernetes objects: its start, and a random
// tag so that two runs never share one.
func kubeRunName(t time.Time) string {
	var tag [3]byte
	_, _ = rand.Read(tag[:])
	return "cb" + strings.ToLower(t.UTC().Format("20060102t150405")) + "-" + hex.EncodeToString(tag[:])
}

// checkClockListen refuses a --clock-listen that the processes could not
// be given: not HOST:PORT, or a host that is not one address (0.0.0.0
// listens everywhere and names nothing to connect to).
func checkClockListen(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--clock-listen %q: expected HOST:PORT, an address of this host that the members reach (port 0: any free one): %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("--clock-listen %q: expected one address of this host that the members reach, not one that listens everywhere", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--clock-listen %q: port %q: expected 0 to 65535", addr, port)
	}
	return nil
}

// dryRunName names the run of a dry run's Pod.
const dryRunName = "cbdryrun"

// printPod writes, after a dry run's plan, the Pod of the first cell's
// first member as the launcher would create it, as YAML that a cluster
// can check (kubectl apply --dry-run=server): the run's name, folder,
// topic and group are made up, the rest is the run's.
func (f *launcherFlags) printPod(w io.Writer, opts runner.Options, bootstrap string) error {
	results, err := filepath.Abs(opts.ResultsDir)
	if err != nil {
		return err
	}
	cells := opts.Cells
	if len(cells) == 0 {
		cells = opts.Spec.Cells()
	}
	cell := cells[0]
	cfg := member.WorkloadConfig(opts.Spec, cell)
	cfg.Name, cfg.Inc, cfg.Control = "m1", 0, true
	cfg.HistoryDir = filepath.Join(results, "RUN-FOLDER", cell.Name, "history")
	cfg.Bootstrap, cfg.Group, cfg.Topic = bootstrap, "chaosbench-dry-run", "chaosbench-dry-run"
	cfg.ClockURL = ""
	if f.clockListen != "" {
		cfg.ClockURL = "http://" + f.clockListen + clock.Path
	}
	secret := ""
	if len(cfg.Env()) > 0 {
		secret = dryRunName + "-env"
	}
	deadline, err := kubeDeadline(opts.Spec, f.kube.Deadline)
	if err != nil {
		return err
	}
	ns := f.kube.Namespace
	if ns == "" {
		ns = "default"
	}
	kc := kube.Config{Namespace: ns, Image: f.kube.Image, Binary: f.kube.Binary, PullPolicy: corev1.PullIfNotPresent,
		Run: dryRunName, Deadline: deadline, Grace: 30 * time.Second, Results: kube.Volume{Path: results, Claim: f.kube.ResultsClaim}}
	owner := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "chaosbench-" + dryRunName, UID: "00000000-0000-0000-0000-000000000000"}
	pod := kube.Pod(&kc, owner, launcher.Spec{Name: "m1", Inc: 0, Cell: cell.Name, Args: append([]string{"member"}, cfg.Args()...), Control: true}, secret)
	b, err := yaml.Marshal(pod)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n# The Pod of m1.0 of %s, as --launcher kubernetes would create it (the run's name,\n", cell.Name)
	fmt.Fprintf(w, "# folder, topic and group made up). A cluster checks it with:\n")
	fmt.Fprintf(w, "#   chaos run --dry-run ... | sed -n '/^---$/,$p' | kubectl apply --dry-run=server -f -\n---\n%s", b)
	return nil
}
