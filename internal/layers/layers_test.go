package layers

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/chaosbench/chaosbench/"

// layer gives every package of the module its layer (docs/design.md,
// "Layers", lists the same).
var layer = map[string]int{
	"internal/vocab": 0, "internal/history": 0, "internal/runfolder": 0, "internal/pace": 0,
	"internal/partitioner": 0, "internal/keygen": 0, "internal/version": 0, "internal/procutil": 0,
	"internal/testcert": 0, "internal/schema": 0, "internal/kafkarelease": 0, "internal/clip": 0,
	"internal/layers": 0, "internal/stamp": 0, "internal/stat": 0, "internal/autoscale": 0,

	"workloads": 1, "assign": 1, "internal/kafkaconf": 1, "internal/launcher": 1, "internal/probe": 1, "internal/clock": 1,
	"internal/netfault": 1, "internal/control": 1, "internal/historytopic": 1,
	"internal/summary": 1,

	"internal/check": 2, "internal/check/synth": 2, "internal/cluster": 2, "internal/member": 2,
	"internal/loadgen": 2, "internal/cli": 2, "internal/sweep": 2, "internal/launcher/kube": 2,

	"internal/runner": 3, "report": 3, "internal/kafkatest": 3, "internal/sweep/groupmodel": 3,
	"internal/sweep/sweeptest": 3, "internal/launcher/kubetest": 3,

	"cmd/chaos": 4, "cmd/loadgen": 4, "internal/check/synth/benchanalyze": 4, "internal/check/hostexp": 4,
	"internal/loadgen/benchproducer": 4, "assign/javabench": 4, "internal/member/benchmember": 4,
}

// pure are the packages that must not reach a Kafka client, Docker or the
// network.
var pure = []string{
	"internal/vocab", "internal/history", "internal/runfolder", "internal/pace",
	"internal/partitioner", "internal/keygen", "internal/schema", "internal/clip", "internal/stamp", "internal/stat", "internal/autoscale", "workloads", "assign",
	"internal/check", "internal/check/synth", "report", "internal/sweep", "internal/summary",
	"internal/sweep/groupmodel", "internal/sweep/sweeptest",
}

// reaches reports whether an imported package (module packages relative)
// is one a pure package may not depend on, and why.
func reaches(dep string) (why string, bad bool) {
	switch {
	case dep == "net" || dep == "net/http" || dep == "os/exec":
		return "the network or other processes", true
	case strings.HasPrefix(dep, "github.com/twmb/franz-go"), strings.HasPrefix(dep, "github.com/confluentinc/"):
		return "a Kafka client", true
	case strings.HasPrefix(dep, "github.com/testcontainers/"), strings.HasPrefix(dep, "github.com/docker/"),
		strings.HasPrefix(dep, "github.com/moby/"):
		return "Docker", true
	}
	return "", false
}

type pkg struct {
	path          string // relative to the module
	imports, deps []string
}

func list(t *testing.T) []pkg {
	t.Helper()
	readSources(t)
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`, module+"...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		pkgs = append(pkgs, pkg{strings.TrimPrefix(f[0], module), split(f[1]), split(f[2])})
	}
	if len(pkgs) < len(layer)/2 {
		t.Fatalf("go list found %d packages: not the module", len(pkgs))
	}
	return pkgs
}

// readSources reads the module's go.mod, go.sum and Go files. go test
// caches a test's result by the files the test itself opened; go list
// reads them in another process, so without this an edit that breaks the
// rule would find the old, passing result in the cache.
func readSources(t *testing.T) {
	t.Helper()
	root := filepath.Join("..", "..")
	for _, f := range []string{"go.mod", "go.sum"} {
		if _, err := os.ReadFile(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "results") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func TestLayersImportOnlyDownward(t *testing.T) {
	for _, p := range list(t) {
		l, ok := layer[p.path]
		if !ok {
			t.Errorf("%s: no layer: give it one in layers_test.go and in docs/design.md's layer table", p.path)
			continue
		}
		for _, imp := range p.imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			rel := strings.TrimPrefix(imp, module)
			if li, ok := layer[rel]; ok && li >= l {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports go only downward", p.path, l, rel, li)
			}
		}
	}
}

func TestPureCoreReachesNoClient(t *testing.T) {
	byPath := map[string]pkg{}
	for _, p := range list(t) {
		byPath[p.path] = p
	}
	isPure := map[string]bool{}
	for _, p := range pure {
		isPure[p] = true
	}
	for _, name := range pure {
		p, ok := byPath[name]
		if !ok {
			t.Errorf("%s: not found", name)
			continue
		}
		for _, dep := range p.deps {
			if why, bad := reaches(dep); bad {
				t.Errorf("%s depends on %s: it reaches %s", name, dep, why)
			}
			if rel, ok := strings.CutPrefix(dep, module); ok && !isPure[rel] {
				t.Errorf("%s depends on %s, which is not part of the pure core", name, rel)
			}
		}
	}
}

// The rule must be able to fail: a package that reaches a client is
// caught.
func TestReachesCatchesClients(t *testing.T) {
	for _, dep := range []string{"github.com/twmb/franz-go/pkg/kgo", "github.com/confluentinc/confluent-kafka-go/v2/kafka",
		"github.com/testcontainers/testcontainers-go", "net", "os/exec"} {
		if _, bad := reaches(dep); !bad {
			t.Errorf("%s passes", dep)
		}
	}
	for _, dep := range []string{"net/url", "encoding/json", "github.com/HdrHistogram/hdrhistogram-go", "gonum.org/v1/plot"} {
		if why, bad := reaches(dep); bad {
			t.Errorf("%s refused: %s", dep, why)
		}
	}
}
