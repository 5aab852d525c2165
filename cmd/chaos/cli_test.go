package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

var binaries struct {
	once           sync.Once
	chaos, loadgen string
	err            error
}

// testBinaries builds chaos and loadgen once for the package's tests.
func testBinaries(t *testing.T) (chaos, loadgen string) {
	t.Helper()
	binaries.once.Do(func() {
		dir, err := os.MkdirTemp("", "chaosbench-cli-test-")
		if err != nil {
			binaries.err = err
			return
		}
		if binaries.chaos, binaries.err = kafkatest.Build(dir, "chaos"); binaries.err == nil {
			binaries.loadgen, binaries.err = kafkatest.Build(dir, "loadgen")
		}
	})
	if binaries.err != nil {
		t.Fatal(binaries.err)
	}
	return binaries.chaos, binaries.loadgen
}

// TestMain removes the binaries the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binaries.chaos != "" {
		os.RemoveAll(filepath.Dir(binaries.chaos))
	}
	os.Exit(code)
}

// run runs a binary and returns its stdout, stderr and exit status.
func runBin(t *testing.T, bin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		status = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), status
}

// flagLine is a flag's line in PrintDefaults: "  -name" and at most one
// word, the value's type or name (a one-letter flag's usage follows a
// tab). More words come from a back-quoted phrase in the flag's usage,
// which the flag package takes for the value's name ("-repeat chaos
// compare").
var flagLine = regexp.MustCompile(`^  -(\S+)([^\t]*)`)

// TestEveryHelp: -h and --help exit 0 on every command and subcommand,
// print a usage (to standard output) that says what the command does,
// and no flag's line is garbled.
func TestEveryHelp(t *testing.T) {
	chaos, loadgen := testBinaries(t)
	var cmds [][]string
	for name := range commands {
		cmds = append(cmds, []string{chaos, name})
	}
	for _, sub := range []string{"fetch", "up", "down", "status"} {
		cmds = append(cmds, []string{chaos, "cluster", sub})
	}
	for _, name := range []string{"run", "partition", "plan"} {
		cmds = append(cmds, []string{loadgen, name})
	}
	cmds = append(cmds, []string{chaos}, []string{loadgen})
	for _, c := range cmds {
		for _, h := range []string{"-h", "--help"} {
			args := append(append([]string{}, c[1:]...), h)
			name := filepath.Base(c[0]) + " " + strings.Join(args, " ")
			out, errOut, status := runBin(t, c[0], args...)
			if status != 0 || errOut != "" {
				t.Errorf("%s: status %d, stderr %q", name, status, errOut)
			}
			if !strings.HasPrefix(out, "usage: ") || strings.Count(out, "\n") < 3 {
				t.Errorf("%s: no usage worth the name:\n%s", name, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if m := flagLine.FindStringSubmatch(line); m != nil && len(strings.Fields(m[2])) > 1 {
					t.Errorf("%s: garbled flag line %q", name, line)
				}
			}
		}
	}
}

// TestVersion: --version and version on both commands print the versions
// of chaosbench and what it runs.
func TestVersion(t *testing.T) {
	chaos, loadgen := testBinaries(t)
	for _, bin := range []string{chaos, loadgen} {
		for _, arg := range []string{"--version", "version", "-version"} {
			out, errOut, status := runBin(t, bin, arg)
			name := filepath.Base(bin)
			if status != 0 || errOut != "" || !strings.HasPrefix(out, name+" ") {
				t.Errorf("%s %s: status %d, stderr %q, stdout %q", name, arg, status, errOut, out)
			}
			for _, want := range []string{"(chaosbench)", "go1.", "librdkafka", "franz-go ", "kafka "} {
				if !strings.Contains(out, want) {
					t.Errorf("%s %s: no %q in\n%s", name, arg, want, out)
				}
			}
		}
	}
}

// TestCommandLineConventions: flags after the workload, a flag error
// printed once, several workloads checked by --dry-run.
func TestCommandLineConventions(t *testing.T) {
	chaos, _ := testBinaries(t)
	out, errOut, status := runBin(t, chaos, "run", "--dry-run", "../../workloads/default.yaml", "--strategies", "sticky")
	if status != 0 || strings.Count(out, "strategy ") != 1 || !strings.Contains(out, "sticky.sync-batch.franz") {
		t.Errorf("flags after the workload: status %d\n%s%s", status, out, errOut)
	}
	_, errOut, status = runBin(t, chaos, "run", "--dry-run", "../../workloads/default.yaml", "--bogus")
	if status != 2 || strings.Count(errOut, "flag provided but not defined: -bogus") != 1 {
		t.Errorf("a bad flag: status %d, the error not exactly once:\n%s", status, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("duration: 1m\nproducer: {acks: 2}\n"), 0o644)
	workloads, _ := filepath.Glob("../../workloads/*.yaml")
	out, errOut, status = runBin(t, chaos, append([]string{"run", "--dry-run", bad}, workloads...)...)
	if status != 2 || !strings.Contains(errOut, bad+":2: producer.acks") || strings.Count(out, "chaos plan") != len(workloads) {
		t.Errorf("--dry-run of %d good and a bad workload: status %d\n%s%s", len(workloads), status, out, errOut)
	}
	out, errOut, status = runBin(t, chaos, append([]string{"run", "--dry-run"}, workloads...)...)
	if status != 0 || strings.Count(out, "chaos plan") != len(workloads) {
		t.Errorf("--dry-run of every shipped workload: status %d\n%s%s", status, out, errOut)
	}
	if _, errOut, status = runBin(t, chaos, "run", "../../workloads/default.yaml", "../../workloads/hot-keys.yaml"); status != 2 || !strings.Contains(errOut, "several with --dry-run") {
		t.Errorf("two workloads without --dry-run: status %d\n%s", status, errOut)
	}
}
