package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/chaosbench/chaosbench/internal/launcher"
)

// process is one incarnation's Pod.
type process struct {
	l    *Launcher
	spec launcher.Spec
	pod  string
	uid  types.UID

	ctx    context.Context // ends the log copy and the attach
	cancel context.CancelFunc

	mu      sync.Mutex
	node    string
	exit    exitState
	done    chan struct{}
	logDone chan struct{}
	ended   chan struct{} // closed once the log is copied and the Pod deleted

	ctlMu sync.Mutex
	ctlW  *io.PipeWriter // the attach's standard input, while it lasts
}

// exitState is what the container's terminated state says.
type exitState struct {
	status int
	signal string
	reason string // for the log: the exit code, the kubelet's reason and message
}

func newProcess(l *Launcher, s launcher.Spec, pod *corev1.Pod) *process {
	ctx, cancel := context.WithCancel(context.Background())
	return &process{l: l, spec: s, pod: pod.Name, uid: pod.UID, ctx: ctx, cancel: cancel,
		done: make(chan struct{}), logDone: make(chan struct{}), ended: make(chan struct{})}
}

func (p *process) Name() string          { return p.spec.Name }
func (p *process) Inc() int              { return p.spec.Inc }
func (p *process) Done() <-chan struct{} { return p.done }

// PID is 0: a process ID means nothing across hosts; the Pod's name
// (PodName) takes its place.
func (p *process) PID() int { return 0 }

// Host is the node the Pod runs on (launcher.Placed).
func (p *process) Host() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.node
}

// Exit is the container's exit: its code, or -1 and the signal's name
// for a code above 128; -1 and no signal when the Pod went without a
// terminated state (deleted before it ran, its node lost).
func (p *process) Exit() (int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit.status, p.exit.signal
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) finish(e exitState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		return
	default:
	}
	p.exit = e
	close(p.done)
}

// observe takes in one sight of the Pod (nil when it is gone) and reports
// whether it has ended.
func (p *process) observe(pod *corev1.Pod) bool {
	if pod == nil {
		p.finish(exitState{status: -1, reason: "the pod was deleted before its container's exit was reported"})
		return true
	}
	if pod.Spec.NodeName != "" {
		p.mu.Lock()
		p.node = pod.Spec.NodeName
		p.mu.Unlock()
	}
	if e, ok := exitOf(pod); ok {
		p.finish(e)
		return true
	}
	return false
}

// waitRunning waits until the container runs or has ended.
func (p *process) waitRunning(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.l.cfg.StartTimeout)
	defer cancel()
	var why string
	err := p.watch(ctx, func(pod *corev1.Pod) bool {
		if p.observe(pod) {
			return true
		}
		if running(pod) {
			return true
		}
		why = pending(pod)
		return false
	})
	if err != nil {
		if why != "" {
			return fmt.Errorf("not running after %v: %s", p.l.cfg.StartTimeout, why)
		}
		return err
	}
	return nil
}

// follow copies the container's output into the incarnation's log,
// attaches to its standard input when it takes commands, and watches it
// until it ends: then it deletes the Pod, once the log is copied.
func (p *process) follow() {
	go p.copyLog()
	if p.spec.Control && !p.exited() {
		p.ctlMu.Lock()
		p.attach()
		p.ctlMu.Unlock()
	}
	go func() {
		defer close(p.ended)
		if !p.exited() {
			if err := p.watch(p.ctx, p.observe); err != nil && !p.exited() {
				// Only Close ends the watch before the Pod does.
				p.finish(exitState{status: -1, reason: "the launcher stopped following the pod: " + err.Error()})
			}
		}
		select {
		case <-p.logDone:
		case <-time.After(10 * time.Second):
		}
		p.note()
		p.cancel()
		zero := int64(0)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := p.l.cfg.Client.Pods(p.l.cfg.Namespace).Delete(ctx, p.pod,
			metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &p.uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			p.l.logf("pod %s: delete after its exit: %v", p.pod, err)
		}
	}()
}

// note appends the container's exit, as the kubelet reported it, to the
// incarnation's log.
func (p *process) note() {
	f, err := os.OpenFile(p.spec.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(f, "chaosbench: pod %s/%s on node %q: %s\n", p.l.cfg.Namespace, p.pod, p.node, p.exit.reason)
}

func (p *process) copyLog() {
	defer close(p.logDone)
	f, err := os.OpenFile(p.spec.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.l.logf("pod %s: log: %v", p.pod, err)
		return
	}
	defer f.Close()
	r, err := p.l.cfg.Streams.Log(p.ctx, p.l.cfg.Namespace, p.pod, Container)
	if err != nil {
		fmt.Fprintf(f, "chaosbench: pod %s: log: %v\n", p.pod, err)
		return
	}
	defer r.Close()
	if _, err := io.Copy(f, r); err != nil && p.ctx.Err() == nil {
		fmt.Fprintf(f, "chaosbench: pod %s: log: %v\n", p.pod, err)
	}
}

// stopFollowing ends the log copy and the attach.
func (p *process) stopFollowing() { p.cancel() }

// abandon deletes a Pod that did not start.
func (p *process) abandon() {
	p.cancel()
	zero := int64(0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = p.l.cfg.Client.Pods(p.l.cfg.Namespace).Delete(ctx, p.pod, metav1.DeleteOptions{GracePeriodSeconds: &zero})
}

// resync bounds how long a missed watch event can go unnoticed.
const resync = 30 * time.Second

// watch calls seen with the Pod (nil once it is gone) until seen returns
// true or ctx ends: a read, then a watch from the read's resource
// version, read again whenever the watch closes and every resync.
func (p *process) watch(ctx context.Context, seen func(*corev1.Pod) bool) error {
	pods := p.l.cfg.Client.Pods(p.l.cfg.Namespace)
	for {
		pod, err := pods.Get(ctx, p.pod, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return p.gone(seen)
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			select { // an API server briefly away: try again
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
				continue
			}
		case pod.UID != p.uid && p.uid != "":
			return p.gone(seen)
		}
		if seen(pod) {
			return nil
		}
		w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + p.pod, ResourceVersion: pod.ResourceVersion})
		if err != nil {
			select { // read again, a second later
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
				continue
			}
		}
		stop, err := p.events(ctx, w, seen)
		w.Stop()
		if stop || err != nil {
			return err
		}
	}
}

// gone reports a Pod that is no more; seen decides whether that ends the
// wait (it always does).
func (p *process) gone(seen func(*corev1.Pod) bool) error {
	if seen(nil) {
		return nil
	}
	return errors.New("gone")
}

// events reads one watch until seen is satisfied (true), the watch ends
// or a resync is due (false), or ctx ends (its error).
func (p *process) events(ctx context.Context, w watch.Interface, seen func(*corev1.Pod) bool) (bool, error) {
	tick := time.NewTimer(resync)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-tick.C:
			return false, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false, nil
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod || pod.Name != p.pod || (p.uid != "" && pod.UID != p.uid) {
				continue // an error event, or another pod (a server may not filter)
			}
			switch ev.Type {
			case watch.Deleted:
				// The last state may hold the container's exit.
				if seen(pod) {
					return true, nil
				}
				return true, p.gone(seen)
			case watch.Added, watch.Modified:
				if seen(pod) {
					return true, nil
				}
			}
		}
	}
}

// Signal acts on the member as docs/design.md's table says: SIGTERM
// deletes the Pod with the grace (the kubelet's SIGTERM, then SIGKILL);
// any other signal is sent inside the Pod by an exec of `chaos
// pod-signal`.
func (p *process) Signal(sig syscall.Signal) error {
	if p.exited() {
		return fmt.Errorf("%s.%d: pod %s has ended", p.spec.Name, p.spec.Inc, p.pod)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if sig == syscall.SIGTERM {
		grace := int64(p.l.cfg.Grace.Seconds())
		err := p.l.cfg.Client.Pods(p.l.cfg.Namespace).Delete(ctx, p.pod,
			metav1.DeleteOptions{GracePeriodSeconds: &grace, Preconditions: &metav1.Preconditions{UID: &p.uid}})
		if err != nil {
			return fmt.Errorf("%s.%d: delete pod %s with grace %ds: %w", p.spec.Name, p.spec.Inc, p.pod, grace, err)
		}
		return nil
	}
	name := strings.TrimPrefix(launcher.SignalName(sig), "SIG")
	cmd := []string{p.l.cfg.Binary, "pod-signal", name}
	if err := p.l.cfg.Streams.Exec(ctx, p.l.cfg.Namespace, p.pod, Container, cmd); err != nil {
		// The member is the container's main process: when a SIGKILL
		// ends it, the runtime ends the container, and may end the exec
		// with it before it reports. An exec that failed and a member
		// that ended all the same is a kill that worked.
		if sig == syscall.SIGKILL {
			select {
			case <-p.done:
				return nil
			case <-time.After(5 * time.Second):
			}
		}
		return fmt.Errorf("%s.%d: %s in pod %s: %w", p.spec.Name, p.spec.Inc, launcher.SignalName(sig), p.pod, err)
	}
	return nil
}

// Control writes a command line to the member's standard input, through
// the attach opened at its start (opened again if it broke).
func (p *process) Control(cmd string) error {
	if !p.spec.Control {
		return fmt.Errorf("%s.%d: no control channel", p.spec.Name, p.spec.Inc)
	}
	p.ctlMu.Lock()
	defer p.ctlMu.Unlock()
	var err error
	for try := 0; try < 2; try++ {
		if p.ctlW == nil {
			p.attach()
		}
		if err = writeLine(p.ctlW, cmd); err == nil {
			return nil
		}
		p.ctlW.CloseWithError(err)
		p.ctlW = nil
		if p.exited() {
			break
		}
	}
	return fmt.Errorf("%s.%d: control %q to pod %s: %w", p.spec.Name, p.spec.Inc, cmd, p.pod, err)
}

// attach opens the stream to the container's standard input; ctlMu held.
func (p *process) attach() {
	r, w := io.Pipe()
	p.ctlW = w
	go func() {
		err := p.l.cfg.Streams.Attach(p.ctx, p.l.cfg.Namespace, p.pod, Container, r)
		if err == nil {
			err = errors.New("the attach ended")
		}
		r.CloseWithError(err)
	}()
}

// writeLine writes cmd and a newline, or fails after 10 s: a stream that
// takes nothing is broken.
func writeLine(w *io.PipeWriter, cmd string) error {
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, cmd+"\n")
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("the attach took nothing for 10s")
	}
}

// running reports whether the member's container runs.
func running(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == Container && cs.State.Running != nil {
			return true
		}
	}
	return false
}

// pending says why the container does not run yet: its waiting reason,
// or a condition that is not met.
func pending(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; cs.Name == Container && w != nil && w.Reason != "" {
			return strings.TrimSpace(w.Reason + ": " + w.Message)
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Status == corev1.ConditionFalse && c.Reason != "" {
			return fmt.Sprintf("%s: %s: %s", c.Type, c.Reason, c.Message)
		}
	}
	return fmt.Sprintf("phase %s", pod.Status.Phase)
}

// exitOf reads the member's exit from the Pod: its container's terminated
// state, or, for a Pod that ended without one, -1 and the Pod's reason.
func exitOf(pod *corev1.Pod) (exitState, bool) {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == Container && cs.State.Terminated != nil {
			e := exitFromTerminated(cs.State.Terminated)
			if pod.Status.Reason != "" {
				e.reason += fmt.Sprintf("; pod %s: %s: %s", pod.Status.Phase, pod.Status.Reason, pod.Status.Message)
			}
			return e, true
		}
	}
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return exitState{status: -1, reason: fmt.Sprintf("pod %s without a container exit: %s %s", pod.Status.Phase, pod.Status.Reason, pod.Status.Message)}, true
	}
	return exitState{}, false
}

// exitFromTerminated maps a terminated state as the local launcher maps a
// wait status: an exit code above 128 (a container runtime's 128 + n)
// is death by signal n.
func exitFromTerminated(t *corev1.ContainerStateTerminated) exitState {
	reason := fmt.Sprintf("container terminated: exit code %d", t.ExitCode)
	if t.Reason != "" {
		reason += " (" + t.Reason + ")"
	}
	if t.Message != "" {
		reason += ": " + strings.TrimSpace(t.Message)
	}
	switch {
	case t.Signal > 0:
		return exitState{status: -1, signal: launcher.SignalName(syscall.Signal(t.Signal)), reason: reason}
	case t.ExitCode > 128 && t.ExitCode <= 128+64:
		return exitState{status: -1, signal: launcher.SignalName(syscall.Signal(t.ExitCode - 128)), reason: reason}
	}
	return exitState{status: int(t.ExitCode), reason: reason}
}
