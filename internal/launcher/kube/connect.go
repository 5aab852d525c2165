package kube

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Flags are the command line's flags of the Kubernetes launcher.
type Flags struct {
	Kubeconfig   string
	Context      string
	Namespace    string
	Image        string
	Binary       string
	ResultsClaim string
	ResultsHost  bool
	Deadline     time.Duration
	StartTimeout time.Duration
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "--launcher kubernetes: the kubeconfig file (default $KUBECONFIG, then ~/.kube/config, then the Pod's service account when the driver runs in the cluster)")
	fs.StringVar(&f.Context, "kube-context", "", "--launcher kubernetes: the kubeconfig's context (default its current one)")
	fs.StringVar(&f.Namespace, "kube-namespace", "", "--launcher kubernetes: the namespace of the run's Pods (default the context's, else default)")
	fs.StringVar(&f.Image, "kube-image", "", "--launcher kubernetes: the image of the members' Pods, holding the chaos binary (required)")
	fs.StringVar(&f.Binary, "kube-binary", defaultBinary, "--launcher kubernetes: the chaos binary's path in the image")
	fs.StringVar(&f.ResultsClaim, "kube-results-claim", "", "--launcher kubernetes: a ReadWriteMany PersistentVolumeClaim holding the results folder, mounted in every Pod at the folder's absolute path (the driver runs in the cluster with the same claim at the same path)")
	fs.BoolVar(&f.ResultsHost, "kube-results-hostpath", false, "--launcher kubernetes: mount the results folder's absolute path from the node (a one-node cluster sharing the driver's folder, e.g. kind with an extraMount)")
	fs.DurationVar(&f.Deadline, "kube-deadline", 0, "--launcher kubernetes: every Pod's activeDeadlineSeconds (default: the workload's traffic, its drain timeout and 10m)")
	fs.DurationVar(&f.StartTimeout, "kube-start-timeout", defaultStartTimeout, "--launcher kubernetes: how long a Pod may take to run (scheduling, image pull)")
}

// Names are the flags' names, for a command that refuses them without
// --launcher kubernetes.
var Names = []string{"kubeconfig", "kube-context", "kube-namespace", "kube-image", "kube-binary",
	"kube-results-claim", "kube-results-hostpath", "kube-deadline", "kube-start-timeout"}

// Check refuses what Open would refuse, before anything starts: no image,
// no results volume, both volumes, a deadline or start timeout out of
// range.
func (f *Flags) Check() error {
	var errs []error
	if f.Image == "" {
		errs = append(errs, errors.New("--kube-image: required: the image of the members' Pods, holding the chaos binary at --kube-binary"))
	}
	switch {
	case f.ResultsClaim == "" && !f.ResultsHost:
		errs = append(errs, errors.New("--kube-results-claim or --kube-results-hostpath: required: the members write their histories into the run folder, which the driver reads while a cell runs, so the Pods must mount it at the driver's own path"))
	case f.ResultsClaim != "" && f.ResultsHost:
		errs = append(errs, errors.New("--kube-results-claim and --kube-results-hostpath: give one"))
	}
	if f.Deadline != 0 && (f.Deadline < time.Minute || f.Deadline > MaxDeadline) {
		errs = append(errs, fmt.Errorf("--kube-deadline %v: expected 1m to %v", f.Deadline, MaxDeadline))
	}
	if f.StartTimeout < 5*time.Second || f.StartTimeout > time.Hour {
		errs = append(errs, fmt.Errorf("--kube-start-timeout %v: expected 5s to 1h", f.StartTimeout))
	}
	if !filepath.IsAbs(f.Binary) {
		errs = append(errs, fmt.Errorf("--kube-binary %q: expected an absolute path in the image", f.Binary))
	}
	return errors.Join(errs...)
}

// ErrUnreachable is returned by Connect when no API server answers.
var ErrUnreachable = errors.New("no Kubernetes cluster reachable")

// Connect reads the kubeconfig as kubectl does (the flags, $KUBECONFIG,
// ~/.kube/config, else the in-cluster service account) and checks that
// the API server answers and that the namespace's Pods can be listed.
// The Config it returns lacks what the run adds (Run, Deadline,
// Results, Logf).
func (f *Flags) Connect(ctx context.Context) (Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: f.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	where := "kubeconfig " + describeKubeconfig(f.Kubeconfig, rules)
	if f.Context != "" {
		where += ", context " + f.Context
	}
	rc, err := cc.ClientConfig()
	if err != nil {
		return Config{}, fmt.Errorf("%w (%s): %v", ErrUnreachable, where, err)
	}
	ns := f.Namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil || ns == "" {
			ns = "default"
		}
	}
	rc.Timeout = 15 * time.Second
	// client-go's defaults (5 requests a second, bursts of 10) would
	// hold a large group's stops back by minutes.
	rc.QPS, rc.Burst = 50, 100
	client, rest, err := NewAPI(rc)
	if err != nil {
		return Config{}, fmt.Errorf("%w (%s): %v", ErrUnreachable, where, err)
	}
	version, err := serverVersion(ctx, rest)
	if err != nil {
		return Config{}, fmt.Errorf("%w (%s, server %s): %v", ErrUnreachable, where, rc.Host, err)
	}
	if _, err := client.Pods(ns).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return Config{}, fmt.Errorf("Kubernetes %s at %s (%s): cannot list the pods of namespace %s: %v", version, rc.Host, where, ns, err)
	}
	// The streams and watches outlive a request's timeout.
	rc.Timeout = 0
	if client, rest, err = NewAPI(rc); err != nil {
		return Config{}, err
	}
	return Config{Client: client, Streams: APIStreams{Config: rc, Client: rest}, Namespace: ns, Image: f.Image,
		Binary: f.Binary, StartTimeout: f.StartTimeout}, nil
}

// serverVersion asks the API server its version (GET /version), as the
// discovery client would, without that client's dependencies.
func serverVersion(ctx context.Context, client restclient.Interface) (string, error) {
	raw, err := client.Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", err
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.GitVersion == "" {
		return "", fmt.Errorf("GET /version: not an API server's answer: %.100q", raw)
	}
	return v.GitVersion, nil
}

func describeKubeconfig(explicit string, rules *clientcmd.ClientConfigLoadingRules) string {
	if explicit != "" {
		return explicit
	}
	if p := rules.GetLoadingPrecedence(); len(p) > 0 {
		return fmt.Sprint(p)
	}
	return "(none: in-cluster)"
}
