package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

// What a java member cannot run is bad input for chaos run and its
// --dry-run, before anything starts: a property Kafka's Java client does
// not know or refuses, no JVM, a JVM too old, no Maven to build the member.
// Each is status 2 naming what was expected, and nothing is written.
func TestRunJavaBadInput(t *testing.T) {
	kafkatest.RequireJava(t)
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	src, err := os.ReadFile("../../workloads/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	workload := func(name, props string) string {
		w := strings.Replace(string(src), "  static_membership: false", "  static_membership: false\n  properties: {"+props+"}", 1)
		w = strings.Replace(w, "name: default", "name: "+name, 1)
		f := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(f, []byte(w), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// A fake JVM that reports Java 11.
	oldJava := filepath.Join(dir, "jdk11")
	if err := os.MkdirAll(filepath.Join(oldJava, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\necho 'openjdk version \"11.0.22\" 2024-01-16' >&2\n"
	if err := os.WriteFile(filepath.Join(oldJava, "bin", "java"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	realJava := os.Getenv("JAVA_HOME")
	if realJava == "" {
		if p, err := filepath.EvalSymlinks(mustLookPath(t, "java")); err == nil {
			realJava = filepath.Dir(filepath.Dir(p))
		}
	}
	for _, c := range []struct {
		name, props string
		env         map[string]string
		want        []string
	}{
		{"unknown-property", `topic.metadata.refresh.interval.ms: "1000"`, nil,
			[]string{"topic.metadata.refresh.interval.ms", "not a property of Kafka's Java consumer"}},
		{"refused-value", `fetch.max.wait.ms: soon`, nil,
			[]string{"fetch.max.wait.ms", "soon"}},
		{"missing-class", `interceptor.classes: no.such.Interceptor`, nil,
			[]string{"interceptor.classes", "no.such.Interceptor"}},
		{"no-jvm", "", map[string]string{"JAVA_HOME": filepath.Join(dir, "nojdk")},
			[]string{"--client java needs Java 17 or newer", "nojdk"}},
		{"old-jvm", "", map[string]string{"JAVA_HOME": oldJava},
			[]string{"is Java 11", "needs Java 17 or newer"}},
		{"no-maven", "", map[string]string{"JAVA_HOME": realJava, "PATH": dir, "CHAOSBENCH_CACHE": filepath.Join(dir, "cache")},
			[]string{"Maven (mvn)", "not on PATH"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			f := workload(c.name, c.props)
			for _, dry := range []bool{true, false} {
				args := []string{"--results", results, "--strategies", "sticky", "--clients", "java", f}
				if dry {
					args = append([]string{"--dry-run"}, args...)
				}
				err := runRun(args)
				if exitStatus(err) != cli.ExitUsage {
					t.Fatalf("dry-run %v: %v (status %d), want status 2", dry, err, exitStatus(err))
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("dry-run %v: %q does not say %q", dry, err, w)
					}
				}
			}
		})
	}
	if _, err := os.Stat(results); !os.IsNotExist(err) {
		t.Errorf("%s exists after rejected runs (%v)", results, err)
	}
}

func mustLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s: %v", name, err)
	}
	return p
}
