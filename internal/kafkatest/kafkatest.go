// Package kafkatest gives tests a real Kafka cluster from the local
// provider. Without Java or the Kafka jars a test skips and says why;
// with CHAOSBENCH_REQUIRE_KAFKA=1 (as `make test` sets) it fails instead,
// so that CI can never pass by skipping.
package kafkatest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
)

// TestSettings are the broker settings of test clusters: no initial
// rebalance delay and short consumer-protocol heartbeats, so that groups
// form in well under a second.
var TestSettings = cluster.Settings{
	"group.initial.rebalance.delay.ms":         "0",
	"group.min.session.timeout.ms":             "1000",
	"group.consumer.min.heartbeat.interval.ms": "500",
	"group.consumer.heartbeat.interval.ms":     "500",
	"group.consumer.min.session.timeout.ms":    "6000",
	"group.consumer.session.timeout.ms":        "10000",
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CHAOSBENCH_REQUIRE_KAFKA") != "" {
		t.Fatalf("a real Kafka cluster is required (CHAOSBENCH_REQUIRE_KAFKA is set): %v", err)
	}
	t.Skipf("skipping: no local Kafka cluster can start here: %v (run `make kafka-fetch`)", err)
}

// Require skips (or, with CHAOSBENCH_REQUIRE_KAFKA, fails) a test that
// needs a local Kafka cluster when none can start here.
func Require(t testing.TB) {
	t.Helper()
	if err := cluster.LocalAvailable(cluster.LocalConfig{}); err != nil {
		unavailable(t, err)
	}
}

// Start starts a cluster of its own for the test, stopped at cleanup.
func Start(t testing.TB, cfg cluster.LocalConfig) *cluster.Local {
	t.Helper()
	if err := cluster.LocalAvailable(cfg); err != nil {
		unavailable(t, err)
	}
	cfg.Settings = TestSettings.Merge(cfg.Settings)
	if cfg.HeapMB == 0 {
		cfg.HeapMB = 512
	}
	if cfg.LogDir == "" {
		cfg.LogDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	c, err := cluster.StartLocal(ctx, cfg)
	if err != nil {
		t.Fatalf("start local Kafka: %v", err)
	}
	t.Logf("local Kafka (%d node(s)) ready in %s at %s", len(c.NodeIDs()), time.Since(start).Round(time.Millisecond), c.Bootstrap())
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("stop local Kafka: %v", err)
		}
	})
	return c
}

var shared struct {
	once sync.Once
	c    *cluster.Local
	err  error
}

// Shared returns the package's one-node cluster, started on first use and
// stopped by Main. Tests sharing it use topics and groups of their own.
func Shared(t testing.TB) *cluster.Local {
	t.Helper()
	if err := cluster.LocalAvailable(cluster.LocalConfig{}); err != nil {
		unavailable(t, err)
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		shared.c, shared.err = cluster.StartLocal(ctx, cluster.LocalConfig{Settings: TestSettings, HeapMB: 512})
	})
	if shared.err != nil {
		t.Fatalf("start shared local Kafka: %v", shared.err)
	}
	return shared.c
}

// Main runs the package's tests and then stops the shared cluster. Use it
// as the package's TestMain: func TestMain(m *testing.M) { kafkatest.Main(m) }.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit: it returns the tests' exit code, for a
// TestMain that has more to clean up.
func Run(m *testing.M) int {
	code := m.Run()
	if shared.c != nil {
		if err := shared.c.Close(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "stop shared local Kafka: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Name returns a topic or group name unique to the test.
func Name(t testing.TB, what string) string {
	return fmt.Sprintf("%s-%s-%d", what, sanitize(t.Name()), time.Now().UnixNano()%1_000_000_000)
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// MainWithChaos is Main for packages whose tests start member processes:
// it builds the chaos command first (BuildChaos), sets *bin to its path,
// runs the tests, stops the shared cluster and removes the binary.
func MainWithChaos(m *testing.M, bin *string) {
	path, err := BuildChaos()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = path
	code := Run(m)
	os.RemoveAll(filepath.Dir(path))
	os.Exit(code)
}

// BuildChaos builds the chaos command into a temporary folder, for tests
// that start member processes. Call it from TestMain; remove the folder
// (filepath.Dir of the path) when done.
func BuildChaos() (string, error) {
	dir, err := os.MkdirTemp("", "chaosbench-test-bin-")
	if err != nil {
		return "", err
	}
	bin, err := Build(dir, "chaos")
	if err != nil {
		os.RemoveAll(dir)
	}
	return bin, err
}

// Build builds the command cmd/<name> of the module into dir and returns
// the binary's path.
func Build(dir, name string) (string, error) {
	bin := filepath.Join(dir, name)
	out, err := exec.Command("go", "build", "-o", bin, "github.com/chaosbench/chaosbench/cmd/"+name).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", name, err, out)
	}
	return bin, nil
}
