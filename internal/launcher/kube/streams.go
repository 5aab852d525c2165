package kube

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
)

// Streams are what the launcher does to a Pod's container beyond the
// objects of the API: the subresources that stream (exec, attach, log).
// APIStreams does them through an API server; a fake clientset cannot,
// and its tests give the kubelet's stand-in (package kubetest).
type Streams interface {
	// Exec runs cmd in the container and returns when it has ended: an
	// error, with what it printed, unless it exited 0.
	Exec(ctx context.Context, namespace, pod, container string, cmd []string) error
	// Attach copies stdin to the container's standard input until stdin
	// ends, the stream breaks or ctx ends.
	Attach(ctx context.Context, namespace, pod, container string, stdin io.Reader) error
	// Log follows the container's output from its start until it ends.
	Log(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error)
}

// APIStreams are Streams through an API server: exec and attach over
// WebSocket, or SPDY for a server that does not upgrade to WebSocket,
// as kubectl does them. Config is the cluster's, Client the core group's
// REST client (NewAPI).
type APIStreams struct {
	Config *rest.Config
	Client rest.Interface
}

func (a APIStreams) executor(req *rest.Request) (remotecommand.Executor, error) {
	ws, err := remotecommand.NewWebSocketExecutor(a.Config, "GET", req.URL().String())
	if err != nil {
		return nil, err
	}
	spdy, err := remotecommand.NewSPDYExecutor(a.Config, "POST", req.URL())
	if err != nil {
		return nil, err
	}
	return remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
}

// Exec implements Streams.
func (a APIStreams) Exec(ctx context.Context, namespace, pod, container string, cmd []string) error {
	req := a.Client.Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: cmd, Stdout: true, Stderr: true}, parameterCodec)
	ex, err := a.executor(req)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Stderr: &out}); err != nil {
		if s := strings.TrimSpace(out.String()); s != "" {
			return fmt.Errorf("%w: %s", err, s)
		}
		return err
	}
	return nil
}

// Attach implements Streams.
func (a APIStreams) Attach(ctx context.Context, namespace, pod, container string, stdin io.Reader) error {
	req := a.Client.Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("attach").
		VersionedParams(&corev1.PodAttachOptions{Container: container, Stdin: true}, parameterCodec)
	ex, err := a.executor(req)
	if err != nil {
		return err
	}
	return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin})
}

// Log implements Streams.
func (a APIStreams) Log(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error) {
	return a.Client.Get().Namespace(namespace).Resource("pods").Name(pod).SubResource("log").
		VersionedParams(&corev1.PodLogOptions{Container: container, Follow: true}, parameterCodec).Stream(ctx)
}
