package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// apiServer answers the requests the launcher makes as an API server
// does, from canned objects, and records each: what proves that the
// client made on the core group's scheme alone (NewAPI) speaks the API's
// paths, parameters and bodies.
type apiServer struct {
	mu   sync.Mutex
	reqs []string // method, path and query, and the body's kind and grace when one
}

func (a *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	line := r.Method + " " + r.URL.Path
	if q := r.URL.Query(); len(q) > 0 {
		line += "?" + q.Encode()
	}
	var obj struct {
		Kind               string `json:"kind"`
		APIVersion         string `json:"apiVersion"`
		GracePeriodSeconds *int64 `json:"gracePeriodSeconds"`
		Metadata           struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if len(body) > 0 && json.Unmarshal(body, &obj) == nil {
		line += fmt.Sprintf(" body %s/%s %s", obj.APIVersion, obj.Kind, obj.Metadata.Name)
		if obj.GracePeriodSeconds != nil {
			line += fmt.Sprintf(" grace %d", *obj.GracePeriodSeconds)
		}
	}
	a.mu.Lock()
	a.reqs = append(a.reqs, line)
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"bench","uid":"u1","resourceVersion":"7"},"status":{"phase":"Running"}}`
	switch {
	case r.URL.Path == "/version":
		fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`)
	case r.URL.Query().Get("watch") == "true":
		fmt.Fprintf(w, `{"type":"MODIFIED","object":%s}`+"\n", strings.Replace(pod, `"Running"`, `"Succeeded"`, 1))
	case strings.HasSuffix(r.URL.Path, "/log"):
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "member started\n")
	case r.Method == http.MethodDelete:
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Success"}`)
	case strings.HasSuffix(r.URL.Path, "/pods") && r.Method == http.MethodGet:
		fmt.Fprintf(w, `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"9"},"items":[%s]}`, pod)
	case strings.HasSuffix(r.URL.Path, "/pods/p1"), strings.HasSuffix(r.URL.Path, "/pods"):
		fmt.Fprint(w, pod)
	case strings.Contains(r.URL.Path, "/secrets"):
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1","uid":"u2"}}`)
	case strings.Contains(r.URL.Path, "/configmaps"):
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1","uid":"u3"}}`)
	default:
		http.NotFound(w, r)
	}
}

func TestAPIOnTheCoreSchemeSpeaksTheAPI(t *testing.T) {
	srv := &apiServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	api, rc, err := NewAPI(&rest.Config{Host: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if v, err := serverVersion(ctx, rc); err != nil || v != "v1.37.2" {
		t.Errorf("version %q %v", v, err)
	}
	pods := api.Pods("bench")
	created, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1"}}, metav1.CreateOptions{})
	if err != nil || created.UID != "u1" {
		t.Errorf("create: %+v %v", created, err)
	}
	got, err := pods.Get(ctx, "p1", metav1.GetOptions{})
	if err != nil || got.ResourceVersion != "7" || got.Status.Phase != corev1.PodRunning {
		t.Errorf("get: %+v %v", got, err)
	}
	list, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("list: %+v %v", list, err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=p1", ResourceVersion: "7"})
	if err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	w.Stop()
	if p, ok := ev.Object.(*corev1.Pod); ev.Type != watch.Modified || !ok || p.Status.Phase != corev1.PodSucceeded {
		t.Errorf("watch event %v %#v", ev.Type, ev.Object)
	}
	grace := int64(30)
	if err := pods.Delete(ctx, "p1", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Error(err)
	}
	if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: RunSelector("r1")}); err != nil {
		t.Error(err)
	}
	if _, err := api.Secrets("bench").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s1"}}, metav1.CreateOptions{}); err != nil {
		t.Error(err)
	}
	if _, err := api.ConfigMaps("bench").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c1"}}, metav1.CreateOptions{}); err != nil {
		t.Error(err)
	}
	if err := api.ConfigMaps("bench").Delete(ctx, "c1", metav1.DeleteOptions{}); err != nil {
		t.Error(err)
	}
	logs, err := APIStreams{Config: &rest.Config{Host: ts.URL}, Client: rc}.Log(ctx, "bench", "p1", Container)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(logs)
	logs.Close()
	if string(b) != "member started\n" {
		t.Errorf("log %q", b)
	}
	want := []string{
		"GET /version",
		"POST /api/v1/namespaces/bench/pods body v1/Pod p1",
		"GET /api/v1/namespaces/bench/pods/p1",
		"GET /api/v1/namespaces/bench/pods?limit=1",
		"GET /api/v1/namespaces/bench/pods?fieldSelector=metadata.name%3Dp1&resourceVersion=7&watch=true",
		"DELETE /api/v1/namespaces/bench/pods/p1 body v1/DeleteOptions  grace 30",
		"DELETE /api/v1/namespaces/bench/pods?labelSelector=app.kubernetes.io%2Fname%3Dchaosbench%2Cchaosbench.io%2Frun%3Dr1 body v1/DeleteOptions ",
		"POST /api/v1/namespaces/bench/secrets body v1/Secret s1",
		"POST /api/v1/namespaces/bench/configmaps body v1/ConfigMap c1",
		"DELETE /api/v1/namespaces/bench/configmaps/c1 body v1/DeleteOptions ",
		"GET /api/v1/namespaces/bench/pods/p1/log?container=member&follow=true",
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if strings.Join(srv.reqs, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(srv.reqs, "\n"), strings.Join(want, "\n"))
	}
}
