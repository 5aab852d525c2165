package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
)

// API is what the launcher asks of the API server: the core group's
// Pods, Secrets and ConfigMaps, in the typed clients' own signatures, so
// that client-go's generated client (and its fake, in the tests) is one.
type API interface {
	Pods(namespace string) PodClient
	Secrets(namespace string) SecretClient
	ConfigMaps(namespace string) ConfigMapClient
}

// PodClient is the launcher's use of a namespace's Pods.
type PodClient interface {
	Create(ctx context.Context, pod *corev1.Pod, opts metav1.CreateOptions) (*corev1.Pod, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Pod, error)
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error
}

// SecretClient is the launcher's use of a namespace's Secrets.
type SecretClient interface {
	Create(ctx context.Context, secret *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error)
}

// ConfigMapClient is the launcher's use of a namespace's ConfigMaps.
type ConfigMapClient interface {
	Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// The core group's types only. client-go's generated clients come with
// its scheme of every API group, which would more than double the chaos
// binary; the launcher needs the core group's.
var (
	coreScheme     = runtime.NewScheme()
	coreCodecs     = serializer.NewCodecFactory(coreScheme)
	parameterCodec = runtime.NewParameterCodec(coreScheme)
)

func init() { utilruntime.Must(corev1.AddToScheme(coreScheme)) }

// restAPI is API on client-go's generic typed client (package gentype,
// of which the generated clients are made) over a REST client of the
// core group.
type restAPI struct{ rc rest.Interface }

func (a restAPI) Pods(ns string) PodClient {
	return gentype.NewClientWithList[*corev1.Pod, *corev1.PodList]("pods", a.rc, parameterCodec, ns,
		func() *corev1.Pod { return &corev1.Pod{} }, func() *corev1.PodList { return &corev1.PodList{} })
}

func (a restAPI) Secrets(ns string) SecretClient {
	return gentype.NewClient[*corev1.Secret]("secrets", a.rc, parameterCodec, ns, func() *corev1.Secret { return &corev1.Secret{} })
}

func (a restAPI) ConfigMaps(ns string) ConfigMapClient {
	return gentype.NewClient[*corev1.ConfigMap]("configmaps", a.rc, parameterCodec, ns, func() *corev1.ConfigMap { return &corev1.ConfigMap{} })
}

// NewAPI is the core group's client for the cluster c describes, as the
// generated client sets it up (its group, path, serializer and user
// agent), and its REST client, which the streams use.
func NewAPI(c *rest.Config) (API, rest.Interface, error) {
	cfg := rest.CopyConfig(c)
	gv := corev1.SchemeGroupVersion
	cfg.GroupVersion = &gv
	cfg.APIPath = "/api"
	cfg.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(coreScheme, coreCodecs).WithoutConversion()
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	return restAPI{rc}, rc, nil
}
