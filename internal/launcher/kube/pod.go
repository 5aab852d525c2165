package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chaosbench/chaosbench/internal/launcher"
)

// The labels every object of a run carries; the owner object carries the
// first three.
const (
	LabelName        = "app.kubernetes.io/name" // always "chaosbench"
	LabelComponent   = "app.kubernetes.io/component"
	LabelRun         = "chaosbench.io/run"
	LabelCell        = "chaosbench.io/cell" // the cell folder as a label value (AnnotationCell holds it whole)
	LabelMember      = "chaosbench.io/member"
	LabelIncarnation = "chaosbench.io/incarnation"
	AnnotationCell   = "chaosbench.io/cell"
)

// Container is the name of the member's container in its Pod.
const Container = "member"

// resultsVolume is the name of the volume the results folder is mounted from.
const resultsVolume = "results"

// Pod is the Pod of one incarnation (docs/design.md, "Members as Pods"):
// restartPolicy Never (an incarnation is the driver's to start, never the
// kubelet's), a shared process namespace (the member is not PID 1, which
// ignores a SIGKILL or SIGSTOP sent from inside), no probe of any kind (a
// paused member must stay paused), activeDeadlineSeconds (nothing outlives
// a driver that died), the driver's grace as terminationGracePeriodSeconds
// (a stop is SIGTERM, then SIGKILL after it), the labels naming run, cell,
// member and incarnation, and an owner reference to the run's object, so
// that deleting it deletes everything. The member's command line is
// s.Args after the chaos binary; its environment (its secret client
// properties) comes from the Secret named secret, never from the spec.
func Pod(c *Config, owner metav1.OwnerReference, s launcher.Spec, secret string) *corev1.Pod {
	labels := memberLabels(c.Run, s)
	deadline := int64(c.Deadline.Seconds())
	grace := int64(c.Grace.Seconds())
	ctr := corev1.Container{
		Name:            Container,
		Image:           c.Image,
		ImagePullPolicy: c.PullPolicy,
		Command:         []string{c.Binary},
		Args:            append([]string(nil), s.Args...),
		// The control channel: the member reads its commands from standard
		// input, which the driver reaches by attaching to the container.
		// StdinOnce false: a driver's attach that breaks does not close it.
		Stdin:                    s.Control,
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		Resources:                c.Resources,
	}
	if secret != "" {
		ctr.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret}}}}
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            PodName(c.Run, s),
			Namespace:       c.Namespace,
			Labels:          labels,
			Annotations:     map[string]string{AnnotationCell: s.Cell},
			OwnerReferences: []metav1.OwnerReference{owner},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			ShareProcessNamespace:         ptr(true),
			ActiveDeadlineSeconds:         &deadline,
			TerminationGracePeriodSeconds: &grace,
			AutomountServiceAccountToken:  ptr(false),
			EnableServiceLinks:            ptr(false),
			ServiceAccountName:            c.ServiceAccount,
			Containers:                    []corev1.Container{ctr},
		},
	}
	if v := c.Results; v.Path != "" {
		src := corev1.VolumeSource{}
		if v.Claim != "" {
			src.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v.Claim}
		} else {
			src.HostPath = &corev1.HostPathVolumeSource{Path: v.Path, Type: ptr(corev1.HostPathDirectory)}
		}
		pod.Spec.Volumes = []corev1.Volume{{Name: resultsVolume, VolumeSource: src}}
		pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: resultsVolume, MountPath: v.Path}}
	}
	return pod
}

func ptr[T any](v T) *T { return &v }

// runLabels are the labels of everything a run creates.
func runLabels(run, component string) map[string]string {
	return map[string]string{LabelName: "chaosbench", LabelComponent: component, LabelRun: run}
}

func memberLabels(run string, s launcher.Spec) map[string]string {
	l := runLabels(run, "member")
	l[LabelCell] = LabelValue(s.Cell)
	l[LabelMember] = LabelValue(s.Name)
	l[LabelIncarnation] = strconv.Itoa(s.Inc)
	return l
}

// RunSelector selects every object of a run.
func RunSelector(run string) string {
	return LabelName + "=chaosbench," + LabelRun + "=" + run
}

var labelValueRE = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)

// LabelValue is s as a label value: itself when it is one (at most 63
// characters of [A-Za-z0-9._-], alphanumeric at both ends), else its
// characters that a value may hold, cut, with a hash of the whole so
// that two names never meet.
func LabelValue(s string) string {
	if len(s) <= 63 && labelValueRE.MatchString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	v := strings.Trim(b.String(), "._-")
	if len(v) > 54 {
		v = strings.TrimRight(v[:54], "._-")
	}
	if v == "" {
		return "h" + hash(s)
	}
	return v + "-" + hash(s)
}

// PodName is the name of an incarnation's Pod: the run, the cell, the
// member and the incarnation, as a DNS label (at most 63 characters of
// [a-z0-9-], so that it is also the Pod's host name); a cell too long for
// it is cut and a hash of the whole added.
func PodName(run string, s launcher.Spec) string {
	tail := "-" + dnsPart(s.Name) + "-" + strconv.Itoa(s.Inc)
	cell := dnsPart(s.Cell)
	name := run + "-" + cell + tail
	if len(name) <= 63 {
		return name
	}
	room := 63 - len(run) - len(tail) - len("--") - 8
	if room < 0 {
		room = 0
	}
	return strings.Trim(run+"-"+strings.TrimRight(cell[:min(room, len(cell))], "-"), "-") + "-" + hash(s.Cell) + tail
}

// dnsPart is s in the characters of a DNS label: lower case, and every
// other character a hyphen.
func dnsPart(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-")
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// runObjectName is the name of the run's owner object.
func runObjectName(run string) string { return "chaosbench-" + run }

// secretName is the name of the Secret holding one environment.
func secretName(run string, env []string) string {
	return fmt.Sprintf("%s-env-%s", run, hash(strings.Join(env, "\x00")))
}
