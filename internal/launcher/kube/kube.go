// Package kube is the Kubernetes launcher: each member incarnation the
// driver starts is a Pod of its own (Pod, in pod.go), and the chaos
// actions act on it through the Kubernetes API as docs/design.md's table
// says:
//
//   - SIGKILL (kill), SIGSTOP and SIGCONT (pause) are sent inside the Pod,
//     by an exec of the chaos binary's `pod-signal` into the member's
//     container: a Pod deleted with no grace still gets SIGTERM first,
//     which a member takes as a graceful stop;
//   - SIGTERM (stop) deletes the Pod with the driver's grace: the kubelet
//     sends SIGTERM, and SIGKILL after terminationGracePeriodSeconds;
//   - a control command (slow) is a line written to the container's
//     standard input, through an attach;
//   - the exit status is the container's terminated state: an exit code
//     above 128 is death by signal code-128, reported as status -1 and
//     the signal's name, as the local launcher reports it.
//
// Every object of a run (Pods, the Secret of the members' secret client
// properties) has an owner reference to one object per run, a ConfigMap:
// Close deletes it and the garbage collector deletes the rest. A driver
// killed before Close leaves Pods that the kubelet ends at their
// activeDeadlineSeconds. What needs a live API server's streams (exec,
// attach, logs) goes through Streams, so that the tests can give a
// stand-in of the kubelet (package kubetest) to client-go's fake clientset.
package kube

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chaosbench/chaosbench/internal/launcher"
)

// Config configures a run's launcher.
type Config struct {
	// Client reaches the API server's core group (Pods, Secrets,
	// ConfigMaps): NewAPI, or client-go's generated client.
	Client API
	// Streams execs into, attaches to and reads the logs of a Pod's
	// container (APIStreams against an API server).
	Streams Streams
	// Namespace holds every object of the run.
	Namespace string
	// Image holds the chaos binary (and, for the java client, Java and
	// the member's jar).
	Image string
	// PullPolicy is the image's pull policy (default IfNotPresent).
	PullPolicy corev1.PullPolicy
	// Binary is the chaos binary's path in the image (default
	// /usr/local/bin/chaos).
	Binary string
	// Run names the run's objects: a DNS label of at most 30 characters.
	Run string
	// Deadline is every Pod's activeDeadlineSeconds: how long after its
	// start the kubelet ends it whatever the driver does. It must exceed
	// the longest a cell can run.
	Deadline time.Duration
	// Grace is the Pods' terminationGracePeriodSeconds: how long a stop's
	// SIGTERM has before SIGKILL (default 30 s, the driver's own grace).
	Grace time.Duration
	// StartTimeout bounds the wait for a Pod's container to run (default
	// 5 minutes: scheduling and an image pull).
	StartTimeout time.Duration
	// Results is where the members write their histories: the run's
	// results folder, at the same path as the driver sees it.
	Results Volume
	// ServiceAccount runs the Pods (default: the namespace's default).
	ServiceAccount string
	// Resources are the member container's requests and limits.
	Resources corev1.ResourceRequirements
	// Logf, if not nil, receives what the launcher does that the driver's
	// log should show.
	Logf func(format string, args ...any)
}

// Volume is the results folder as the Pods mount it, at Path (absolute,
// the driver's own path to it): a PersistentVolumeClaim (ReadWriteMany,
// the driver running in the cluster with the same claim at the same
// path), or, without Claim, the nodes' own folder at Path (hostPath: a
// one-node cluster whose node shares the driver's folder, such as kind
// with an extraMount).
type Volume struct {
	Path  string
	Claim string
}

const (
	defaultBinary       = "/usr/local/bin/chaos"
	defaultGrace        = 30 * time.Second
	defaultStartTimeout = 5 * time.Minute
	// MaxDeadline bounds Deadline: a day.
	MaxDeadline = 24 * time.Hour
)

var runRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// validate fills in the defaults and checks the configuration.
func (c *Config) validate() error {
	if c.Client == nil || c.Streams == nil {
		return errors.New("kubernetes launcher: no client")
	}
	if c.Binary == "" {
		c.Binary = defaultBinary
	}
	if c.PullPolicy == "" {
		c.PullPolicy = corev1.PullIfNotPresent
	}
	if c.Grace == 0 {
		c.Grace = defaultGrace
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = defaultStartTimeout
	}
	var errs []error
	if c.Namespace == "" {
		errs = append(errs, errors.New("no namespace"))
	}
	if c.Image == "" {
		errs = append(errs, errors.New("no image (--kube-image): the image holding the chaos binary"))
	}
	if len(c.Run) > 30 || !runRE.MatchString(c.Run) {
		errs = append(errs, fmt.Errorf("run name %q: expected a DNS label of at most 30 characters", c.Run))
	}
	if c.Deadline < time.Second || c.Deadline > MaxDeadline {
		errs = append(errs, fmt.Errorf("deadline %v: expected 1s to %v", c.Deadline, MaxDeadline))
	}
	if c.Grace < time.Second || c.Grace > time.Hour {
		errs = append(errs, fmt.Errorf("grace %v: expected 1s to 1h", c.Grace))
	}
	if c.Results.Path != "" && !filepath.IsAbs(c.Results.Path) {
		errs = append(errs, fmt.Errorf("results path %q: expected an absolute path", c.Results.Path))
	}
	return errors.Join(errs...)
}

// ErrRefused is returned by New when the cluster refuses the run before
// anything of it exists: no such namespace, or permissions missing.
var ErrRefused = errors.New("the Kubernetes cluster refuses the run")

// Launcher starts member incarnations as Pods. It implements
// launcher.Launcher; Close deletes everything the run created.
type Launcher struct {
	cfg   Config
	owner metav1.OwnerReference

	mu      sync.Mutex
	secrets map[string]bool // the Secrets created, by name
	procs   map[*process]bool
}

// New creates the run's owner object, a ConfigMap named after the run,
// which every Pod and Secret of the run names as its owner.
func New(ctx context.Context, cfg Config) (*Launcher, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: runObjectName(cfg.Run), Namespace: cfg.Namespace,
			Labels: runLabels(cfg.Run, "run")},
		Data: map[string]string{
			"run":      cfg.Run,
			"image":    cfg.Image,
			"deadline": cfg.Deadline.String(),
			"note":     "deleting this object deletes every Pod and Secret of the run",
		},
	}
	created, err := cfg.Client.ConfigMaps(cfg.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("%w: namespace %s: %v", ErrRefused, cfg.Namespace, err)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("%w: namespace %s: the permissions the launcher needs are missing (docs/kubernetes.md, Permissions): %v", ErrRefused, cfg.Namespace, err)
	case err != nil:
		return nil, fmt.Errorf("kubernetes launcher: create the run's object %s/%s: %w", cfg.Namespace, cm.Name, err)
	}
	return &Launcher{cfg: cfg, owner: OwnerReference(created), secrets: map[string]bool{}, procs: map[*process]bool{}}, nil
}

// OwnerReference is the reference every object of a run holds to the
// run's ConfigMap.
func OwnerReference(cm *corev1.ConfigMap) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID}
}

// Run is the run's name, as its objects' label holds it.
func (l *Launcher) Run() string { return l.cfg.Run }

// Namespace is where the run's objects are.
func (l *Launcher) Namespace() string { return l.cfg.Namespace }

func (l *Launcher) logf(format string, args ...any) {
	if l.cfg.Logf != nil {
		l.cfg.Logf(format, args...)
	}
}

// Start creates the incarnation's Pod and returns once its container runs
// (or has already ended). A Pod that does not run within StartTimeout is
// deleted, and the error says why it did not (its container's waiting
// reason, its conditions).
func (l *Launcher) Start(ctx context.Context, s launcher.Spec) (launcher.Process, error) {
	secret, err := l.secret(ctx, s.Env)
	if err != nil {
		return nil, err
	}
	pod := Pod(&l.cfg, l.owner, s, secret)
	pods := l.cfg.Client.Pods(l.cfg.Namespace)
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// A Pod of the name from an earlier run of this command (a
		// sweep's runs have cells of the same names), still going.
		if err = l.clear(ctx, pod.Name); err == nil {
			created, err = pods.Create(ctx, pod, metav1.CreateOptions{})
		}
	}
	if err != nil {
		return nil, fmt.Errorf("start %s.%d: create pod %s: %w", s.Name, s.Inc, pod.Name, err)
	}
	p := newProcess(l, s, created)
	if err := p.waitRunning(ctx); err != nil {
		p.abandon()
		return nil, fmt.Errorf("start %s.%d: pod %s: %w", s.Name, s.Inc, pod.Name, err)
	}
	l.mu.Lock()
	l.procs[p] = true
	l.mu.Unlock()
	p.follow()
	return p, nil
}

// clear waits until the Pod of a name is gone, if it is this run's and
// has ended (deleting it if need be): its launcher deletes it once its
// log is copied.
func (l *Launcher) clear(ctx context.Context, name string) error {
	pods := l.cfg.Client.Pods(l.cfg.Namespace)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		old, err := pods.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case old.Labels[LabelRun] != l.cfg.Run:
			return fmt.Errorf("pod %s exists and is not this run's (%s)", name, old.Labels[LabelRun])
		case old.DeletionTimestamp == nil && running(old):
			return fmt.Errorf("pod %s: an incarnation of the same name runs", name)
		}
		if _, ended := exitOf(old); ended && old.DeletionTimestamp == nil {
			zero := int64(0)
			if err := pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod %s of the same name still there: %w", name, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// secret returns the Secret holding env (KEY=value entries), created once
// per distinct environment and owned by the run: a member's secret client
// properties never appear in a Pod's spec.
func (l *Launcher) secret(ctx context.Context, env []string) (string, error) {
	if len(env) == 0 {
		return "", nil
	}
	sorted := append([]string(nil), env...)
	sort.Strings(sorted)
	name := secretName(l.cfg.Run, sorted)
	l.mu.Lock()
	done := l.secrets[name]
	l.mu.Unlock()
	if done {
		return name, nil
	}
	data := map[string]string{}
	for _, e := range sorted {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return "", fmt.Errorf("environment entry %q: expected KEY=value", strings.SplitN(e, "=", 2)[0])
		}
		data[k] = v
	}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: l.cfg.Namespace, Labels: runLabels(l.cfg.Run, "member-environment"),
			OwnerReferences: []metav1.OwnerReference{l.owner}},
		StringData: data,
		Type:       corev1.SecretTypeOpaque,
	}
	_, err := l.cfg.Client.Secrets(l.cfg.Namespace).Create(ctx, sec, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("create the members' secret %s: %w", name, err)
	}
	l.mu.Lock()
	l.secrets[name] = true
	l.mu.Unlock()
	return name, nil
}

// Close deletes the run's owner object (the garbage collector deletes
// what it owns) and the run's Pods, each with its grace: the driver has
// stopped or killed every member by then, and any Pod still running is
// one it lost. It waits, up to ctx, until every Pod it started has
// ended (a Pod deleted with a grace goes once its container has
// stopped) and its log is copied.
func (l *Launcher) Close(ctx context.Context) error {
	var errs []error
	bg := metav1.DeletePropagationBackground
	err := l.cfg.Client.ConfigMaps(l.cfg.Namespace).Delete(ctx, runObjectName(l.cfg.Run),
		metav1.DeleteOptions{PropagationPolicy: &bg})
	if err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete the run's object %s: %w", runObjectName(l.cfg.Run), err))
	}
	err = l.cfg.Client.Pods(l.cfg.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: RunSelector(l.cfg.Run)})
	if err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete the run's pods: %w", err))
	}
	l.mu.Lock()
	var procs []*process
	for p := range l.procs {
		procs = append(procs, p)
	}
	l.mu.Unlock()
	for _, p := range procs {
		select {
		case <-p.ended:
		case <-ctx.Done():
			p.stopFollowing()
			errs = append(errs, fmt.Errorf("pod %s: still there: %w", p.pod, ctx.Err()))
		}
	}
	return errors.Join(errs...)
}
