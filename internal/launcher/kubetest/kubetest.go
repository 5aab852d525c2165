// Package kubetest is a stand-in for Kubernetes in the tests of the
// Kubernetes launcher: client-go's fake clientset, taught the parts of an
// API server the launcher relies on (UIDs, a Pod's graceful deletion,
// the garbage collection of a deleted owner's objects), and a kubelet that
// runs each Pod's container command as a local process and reports its
// states to the fake API as a node's kubelet does: running, then
// terminated with the exit code a container runtime gives (128 + n for a
// death by signal n), a graceful deletion's SIGTERM and SIGKILL after the
// grace, activeDeadlineSeconds. It also serves the launcher's Streams
// (exec of `chaos pod-signal`, attach, logs) on those processes.
//
// It is not Kubernetes: it schedules nothing, pulls no image (the command
// must be a local program), isolates nothing, and honours only the parts
// of a Pod's spec the launcher sets. What it proves is that the launcher
// drives a Pod through its life as the API says, and reads back what a
// kubelet reports.
package kubetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/chaosbench/chaosbench/internal/launcher/kube"
	"github.com/chaosbench/chaosbench/internal/procutil"
)

// Node is the name of the stand-in's one node.
const Node = "standin-node"

// Kubelet is the stand-in: the fake API (Client) and the node.
type Kubelet struct {
	Client *fake.Clientset
	// CutExecs makes an exec whose signal ends the container fail, as a
	// runtime may end an exec's process with its container's before the
	// exec reports.
	CutExecs bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	containers map[types.UID]*container
	events     []string // what happened, for a test's failure message
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// New starts the stand-in with objects already in the API (a namespace
// need not exist: the fake has none).
func New(objects ...runtime.Object) *Kubelet {
	ctx, cancel := context.WithCancel(context.Background())
	k := &Kubelet{Client: fake.NewSimpleClientset(objects...), ctx: ctx, cancel: cancel,
		containers: map[types.UID]*container{}}
	k.Client.PrependReactor("create", "*", k.onCreate)
	k.Client.PrependReactor("delete", "pods", k.onDeletePod)
	k.Client.PrependReactor("delete", "configmaps", k.onDeleteOwner)
	k.Client.PrependReactor("delete-collection", "pods", k.onDeletePods)
	w, err := k.Client.CoreV1().Pods(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		panic(err) // the fake's watch does not fail
	}
	k.wg.Add(1)
	go k.loop(w)
	return k
}

// Close kills every process still running and stops the stand-in.
func (k *Kubelet) Close() {
	k.cancel()
	k.mu.Lock()
	for _, c := range k.containers {
		c.signal(syscall.SIGKILL)
	}
	k.mu.Unlock()
	k.wg.Wait()
}

// Events is what the stand-in did, one line an event.
func (k *Kubelet) Events() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return strings.Join(k.events, "\n")
}

func (k *Kubelet) logf(format string, args ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.events = append(k.events, time.Now().Format("15:04:05.000 ")+fmt.Sprintf(format, args...))
}

// onCreate gives a new object what an API server gives it: a UID and a
// creation time; a Pod starts Pending.
func (k *Kubelet) onCreate(action k8stesting.Action) (bool, runtime.Object, error) {
	obj := action.(k8stesting.CreateAction).GetObject()
	if m, ok := obj.(metav1.Object); ok && m.GetUID() == "" {
		m.SetUID(uuid.NewUUID())
		m.SetCreationTimestamp(metav1.Now())
	}
	if pod, ok := obj.(*corev1.Pod); ok && pod.Status.Phase == "" {
		pod.Status.Phase = corev1.PodPending
	}
	return false, nil, nil // the fake stores it
}

// onDeletePod is a Pod's graceful deletion as an API server does it
// (deletePod).
func (k *Kubelet) onDeletePod(action k8stesting.Action) (bool, runtime.Object, error) {
	da := action.(k8stesting.DeleteAction)
	return true, nil, k.deletePod(da.GetNamespace(), da.GetName(), da.GetDeleteOptions().GracePeriodSeconds)
}

// deletePod deletes a Pod as an API server does: one that runs is only
// marked (deletionTimestamp, the grace), and its kubelet deletes it once
// its containers have stopped; one that is not on a node yet, has ended,
// or is deleted with grace 0 goes at once. It works on the tracker: a
// reactor may not call the clientset, whose lock it holds.
func (k *Kubelet) deletePod(ns, name string, graceOpt *int64) error {
	obj, err := k.Client.Tracker().Get(podsGVR, ns, name)
	if err != nil {
		return err
	}
	pod := obj.(*corev1.Pod).DeepCopy()
	grace := int64(30)
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	if graceOpt != nil {
		grace = *graceOpt
	}
	ended := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	if grace == 0 || ended || pod.Spec.NodeName == "" {
		return k.Client.Tracker().Delete(podsGVR, ns, name)
	}
	if pod.DeletionTimestamp != nil && *pod.DeletionGracePeriodSeconds <= grace {
		return nil // already going, no sooner
	}
	now := metav1.Now()
	pod.DeletionTimestamp, pod.DeletionGracePeriodSeconds = &now, &grace
	return k.Client.Tracker().Update(podsGVR, pod, ns)
}

// onDeletePods deletes every Pod a delete-collection selects, each as
// deletePod does.
func (k *Kubelet) onDeletePods(action k8stesting.Action) (bool, runtime.Object, error) {
	dc := action.(k8stesting.DeleteCollectionAction)
	list, err := k.Client.Tracker().List(podsGVR, corev1.SchemeGroupVersion.WithKind("Pod"), dc.GetNamespace())
	if err != nil {
		return true, nil, err
	}
	var grace *int64
	if da, ok := action.(k8stesting.DeleteCollectionActionImpl); ok {
		grace = da.DeleteOptions.GracePeriodSeconds
	}
	sel := dc.GetListRestrictions().Labels
	var errs []error
	for _, pod := range list.(*corev1.PodList).Items {
		if sel != nil && !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if err := k.deletePod(pod.Namespace, pod.Name, grace); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return true, nil, errors.Join(errs...)
}

// onDeleteOwner deletes a ConfigMap and then, as the garbage collector
// does for a background deletion, every Pod and Secret that names it as
// their owner.
func (k *Kubelet) onDeleteOwner(action k8stesting.Action) (bool, runtime.Object, error) {
	da := action.(k8stesting.DeleteAction)
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	obj, err := k.Client.Tracker().Get(gvr, da.GetNamespace(), da.GetName())
	if err != nil {
		return true, nil, err
	}
	if err := k.Client.Tracker().Delete(gvr, da.GetNamespace(), da.GetName()); err != nil {
		return true, nil, err
	}
	uid := obj.(*corev1.ConfigMap).UID
	ns := da.GetNamespace()
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		k.collect(ns, uid)
	}()
	return true, nil, nil
}

// collect deletes the dependents of a deleted owner.
func (k *Kubelet) collect(ns string, owner types.UID) {
	owned := func(refs []metav1.OwnerReference) bool {
		for _, r := range refs {
			if r.UID == owner {
				return true
			}
		}
		return false
	}
	ctx := context.Background()
	if pods, err := k.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, p := range pods.Items {
			if owned(p.OwnerReferences) {
				k.logf("gc: delete pod %s", p.Name)
				_ = k.Client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{})
			}
		}
	}
	if secrets, err := k.Client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, s := range secrets.Items {
			if owned(s.OwnerReferences) {
				k.logf("gc: delete secret %s", s.Name)
				_ = k.Client.CoreV1().Secrets(ns).Delete(ctx, s.Name, metav1.DeleteOptions{})
			}
		}
	}
}

// loop is the kubelet's sync: a Pod added is started, a Pod marked for
// deletion is stopped, a Pod gone has its process killed.
func (k *Kubelet) loop(w watch.Interface) {
	defer k.wg.Done()
	defer w.Stop()
	for {
		select {
		case <-k.ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				return
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			k.mu.Lock()
			c := k.containers[pod.UID]
			k.mu.Unlock()
			switch {
			case ev.Type == watch.Deleted:
				if c != nil {
					// Deleted at once (grace 0): the kubelet still stops
					// its containers, with the shortest grace.
					go c.stop(2 * time.Second)
				}
			case c == nil && ev.Type == watch.Added && pod.Status.Phase == corev1.PodPending:
				c = &container{k: k, ns: pod.Namespace, name: pod.Name, uid: pod.UID, out: newOutput()}
				k.mu.Lock()
				k.containers[pod.UID] = c
				k.mu.Unlock()
				k.wg.Add(1)
				go func() {
					defer k.wg.Done()
					c.run(pod.DeepCopy())
				}()
			case c != nil && pod.DeletionTimestamp != nil:
				go c.stop(time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second)
			}
		}
	}
}

// container is one Pod's container, a local process.
type container struct {
	k    *Kubelet
	ns   string
	name string
	uid  types.UID
	out  *output

	mu       sync.Mutex
	proc     *procutil.Proc
	stdin    io.WriteCloser
	stopping bool
}

func (c *container) pods() interface {
	UpdateStatus(context.Context, *corev1.Pod, metav1.UpdateOptions) (*corev1.Pod, error)
	Get(context.Context, string, metav1.GetOptions) (*corev1.Pod, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
} {
	return c.k.Client.CoreV1().Pods(c.ns)
}

// update changes the Pod's status as the kubelet's status manager does.
func (c *container) update(change func(*corev1.PodStatus)) error {
	ctx := context.Background()
	pod, err := c.pods().Get(ctx, c.name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if pod.UID != c.uid {
		return fmt.Errorf("pod %s: another pod of the name", c.name)
	}
	change(&pod.Status)
	_, err = c.pods().UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	return err
}

// run binds the Pod to the node, starts its container's command, reports
// it running, enforces activeDeadlineSeconds, and reports its exit.
func (c *container) run(pod *corev1.Pod) {
	ctx := context.Background()
	pod.Spec.NodeName = Node
	if _, err := c.k.Client.CoreV1().Pods(c.ns).Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		c.k.logf("pod %s: bind: %v", c.name, err)
		return
	}
	ctr := pod.Spec.Containers[0]
	argv := append(append([]string(nil), ctr.Command...), ctr.Args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	env, err := c.env(ctr)
	if err != nil {
		c.fail(err)
		return
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = c.out, c.out
	var stdin io.WriteCloser
	if ctr.Stdin {
		if stdin, err = cmd.StdinPipe(); err != nil {
			c.fail(err)
			return
		}
	}
	proc, err := procutil.Start(cmd, false)
	if err != nil {
		c.fail(err)
		return
	}
	c.mu.Lock()
	c.proc, c.stdin = proc, stdin
	c.mu.Unlock()
	c.k.logf("pod %s: started pid %d: %s", c.name, proc.PID(), strings.Join(argv, " "))
	started := metav1.Now()
	err = c.update(func(s *corev1.PodStatus) {
		s.Phase, s.HostIP, s.PodIP, s.StartTime = corev1.PodRunning, "127.0.0.1", "127.0.0.1", &started
		s.ContainerStatuses = []corev1.ContainerStatus{{Name: ctr.Name, Image: ctr.Image, Ready: true, Started: ptr(true),
			ContainerID: fmt.Sprintf("standin://%d", proc.PID()),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}
	})
	if err != nil {
		c.k.logf("pod %s: report running: %v", c.name, err)
	}
	var deadline <-chan time.Time
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		t := time.NewTimer(time.Duration(*d) * time.Second)
		defer t.Stop()
		deadline = t.C
	}
	reason, message := "", ""
	select {
	case <-proc.Done():
	case <-deadline:
		reason, message = "DeadlineExceeded", fmt.Sprintf("Pod was active on the node longer than the specified deadline (%ds)", *pod.Spec.ActiveDeadlineSeconds)
		c.k.logf("pod %s: active deadline", c.name)
		grace := int64(30)
		if pod.Spec.TerminationGracePeriodSeconds != nil {
			grace = *pod.Spec.TerminationGracePeriodSeconds
		}
		c.stop(time.Duration(grace) * time.Second)
		<-proc.Done()
	}
	c.exited(ctr, proc, started, reason, message)
}

// exited reports the container terminated, and deletes a Pod that was
// being deleted, as the kubelet does once its containers have stopped.
func (c *container) exited(ctr corev1.Container, proc *procutil.Proc, started metav1.Time, reason, message string) {
	code, why := int32(0), "Completed"
	if st := proc.State(); st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code, why = 128+int32(ws.Signal()), "Error"
		} else if st.ExitCode() != 0 {
			code, why = int32(st.ExitCode()), "Error"
		}
	}
	c.k.logf("pod %s: exited with code %d", c.name, code)
	finished := metav1.Now()
	err := c.update(func(s *corev1.PodStatus) {
		s.Phase = corev1.PodSucceeded
		if code != 0 || reason != "" {
			s.Phase = corev1.PodFailed
		}
		s.Reason, s.Message = reason, message
		s.ContainerStatuses = []corev1.ContainerStatus{{Name: ctr.Name, Image: ctr.Image,
			ContainerID: fmt.Sprintf("standin://%d", proc.PID()),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: why,
				StartedAt: started, FinishedAt: finished}}}}
	})
	c.out.close()
	if err != nil {
		c.k.logf("pod %s: report exit: %v", c.name, err)
		return // deleted meanwhile
	}
	pod, err := c.pods().Get(context.Background(), c.name, metav1.GetOptions{})
	if err == nil && pod.UID == c.uid && pod.DeletionTimestamp != nil {
		zero := int64(0)
		_ = c.pods().Delete(context.Background(), c.name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	}
}

func ptr[T any](v T) *T { return &v }

// fail reports a container that could not start.
func (c *container) fail(err error) {
	c.k.logf("pod %s: %v", c.name, err)
	_ = c.update(func(s *corev1.PodStatus) {
		s.ContainerStatuses = []corev1.ContainerStatus{{Name: kube.Container,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "RunContainerError", Message: err.Error()}}}}
	})
}

// env is the container's environment: its own entries, and those of the
// Secrets it takes whole.
func (c *container) env(ctr corev1.Container) ([]string, error) {
	var env []string
	for _, e := range ctr.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	for _, from := range ctr.EnvFrom {
		if from.SecretRef == nil {
			continue
		}
		s, err := c.k.Client.CoreV1().Secrets(c.ns).Get(context.Background(), from.SecretRef.Name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("secret %s: %w", from.SecretRef.Name, err)
		}
		// The fake does not turn stringData into data, as a server does.
		for k, v := range s.StringData {
			env = append(env, k+"="+v)
		}
		for k, v := range s.Data {
			env = append(env, k+"="+string(v))
		}
	}
	return env, nil
}

// signal sends sig to the process, if it runs.
func (c *container) signal(sig syscall.Signal) error {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p == nil {
		return errors.New("container not started")
	}
	select {
	case <-p.Done():
		return errors.New("container not running")
	default:
	}
	return p.Signal(sig)
}

// stop is the runtime's stop: SIGTERM, SIGKILL after grace (a stopped
// process keeps the SIGTERM pending: no SIGCONT, as a runtime sends none).
func (c *container) stop(grace time.Duration) {
	c.mu.Lock()
	if c.stopping || c.proc == nil {
		c.mu.Unlock()
		return
	}
	c.stopping = true
	p := c.proc
	c.mu.Unlock()
	c.k.logf("pod %s: stop, grace %v", c.name, grace)
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.Done():
	case <-time.After(grace):
		c.k.logf("pod %s: SIGKILL after the grace", c.name)
		_ = p.Signal(syscall.SIGKILL)
	}
}

func (k *Kubelet) container(ns, pod string) (*container, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range k.containers {
		if c.ns == ns && c.name == pod {
			select {
			case <-c.out.done:
				continue // an ended one of the same name
			default:
			}
			return c, nil
		}
	}
	return nil, fmt.Errorf("pod %s/%s: no running container", ns, pod)
}

// Exec implements kube.Streams for `chaos pod-signal SIGNAL`, the one
// command the launcher execs: the signal goes to the container's process.
func (k *Kubelet) Exec(ctx context.Context, ns, pod, ctr string, cmd []string) error {
	c, err := k.container(ns, pod)
	if err != nil {
		return err
	}
	if len(cmd) != 3 || cmd[1] != "pod-signal" {
		return fmt.Errorf("the stand-in execs only `chaos pod-signal SIGNAL`, not %q", cmd)
	}
	sig, err := kube.ParseSignal(cmd[2])
	if err != nil {
		return err
	}
	k.logf("pod %s: exec pod-signal %s", pod, cmd[2])
	if err := c.signal(sig); err != nil {
		return err
	}
	if k.CutExecs {
		select {
		case <-c.out.done:
			return errors.New("command terminated with exit code 137: the container ended")
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// Attach implements kube.Streams: stdin to the process's standard input.
func (k *Kubelet) Attach(ctx context.Context, ns, pod, ctr string, stdin io.Reader) error {
	c, err := k.container(ns, pod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	w := c.stdin
	c.mu.Unlock()
	if w == nil {
		return errors.New("the container has no standard input")
	}
	errc := make(chan error, 1)
	go func() {
		// Not closed at the end: StdinOnce is false.
		_, err := io.Copy(w, stdin)
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-c.out.done:
		return errors.New("the container has ended")
	}
}

// Log implements kube.Streams: the process's output from its start,
// followed until it ends.
func (k *Kubelet) Log(ctx context.Context, ns, pod, ctr string) (io.ReadCloser, error) {
	c, err := k.container(ns, pod)
	if err != nil {
		return nil, err
	}
	return c.out.reader(ctx), nil
}

var _ kube.Streams = (*Kubelet)(nil)

// API is the fake clientset's core group as the launcher's kube.API:
// client-go's generated client, which the launcher's API is a part of.
func (k *Kubelet) API() kube.API { return typedAPI{k.Client.CoreV1()} }

type typedAPI struct{ c corev1client.CoreV1Interface }

func (t typedAPI) Pods(ns string) kube.PodClient             { return t.c.Pods(ns) }
func (t typedAPI) Secrets(ns string) kube.SecretClient       { return t.c.Secrets(ns) }
func (t typedAPI) ConfigMaps(ns string) kube.ConfigMapClient { return t.c.ConfigMaps(ns) }
