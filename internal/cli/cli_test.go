package cli

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Flags may follow the positional arguments, as a Kafka user types them;
// "--" ends them; "-" is an argument.
func TestParseInterleaves(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  []string
		s    string
		b    bool
	}{
		{[]string{"w.yaml", "--strategies", "sticky"}, []string{"w.yaml"}, "sticky", false},
		{[]string{"--dry", "a.yaml", "-s=x", "b.yaml"}, []string{"a.yaml", "b.yaml"}, "x", true},
		{[]string{"a", "--", "-s", "b"}, []string{"a", "-s", "b"}, "", false},
		{[]string{"-", "-dry=false", "-s", "-"}, []string{"-"}, "-", false},
		{[]string{"-s", "--dry", "w"}, []string{"w"}, "--dry", false},
	} {
		fs := NewFlagSet("t", io.Discard)
		s := fs.String("s", "", "")
		fs.String("strategies", "", "")
		b := fs.Bool("dry", false, "")
		if err := Parse(fs, tc.args); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if tc.s == "sticky" {
			*s = fs.Lookup("strategies").Value.String()
		}
		if !reflect.DeepEqual(fs.Args(), tc.pos) || *s != tc.s || *b != tc.b {
			t.Errorf("%q: args %q s %q b %v, want %q %q %v", tc.args, fs.Args(), *s, *b, tc.pos, tc.s, tc.b)
		}
	}
	fs := NewFlagSet("t", io.Discard)
	fs.String("s", "", "")
	var ue *UsageError
	if err := Parse(fs, []string{"w.yaml", "-s"}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "needs an argument") {
		t.Errorf("a flag without its value: %v", err)
	}
	if err := Parse(fs, []string{"w.yaml", "--nope"}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "-nope") {
		t.Errorf("an unknown flag: %v", err)
	}
	if err := Parse(fs, []string{"w.yaml", "--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
}

// A workload file may hold no secret: it is copied into every results
// folder.
func TestLoadWorkloadRefusesSecrets(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"consumer.properties.sasl.password":                   "duration: 1m\nconsumer:\n  properties: {sasl.password: hunter2}\n",
		"broker.config.listener.name.x.ssl.keystore.password": "duration: 1m\nbroker:\n  config: {listener.name.x.ssl.keystore.password: hunter2}\n",
	} {
		path := filepath.Join(dir, "w.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadWorkload(path)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), path+": "+name) || !strings.Contains(err.Error(), "-F") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCheckRanges: every flag out of its bounds is named, with its
// bounds, as a usage error (exit status 2); values on a bound pass.
func TestCheckRanges(t *testing.T) {
	if err := CheckRanges(IntRange{"a", 1, 1, 5}, IntRange{"b", 5, 1, 5}); err != nil {
		t.Fatalf("on the bounds: %v", err)
	}
	err := CheckRanges(IntRange{"a", 0, 1, 5}, IntRange{"b", 3, 1, 5}, IntRange{"c", 6, 1, 5})
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want a usage error", err)
	}
	if got, want := err.Error(), "--a 0: expected 1 to 5\n--c 6: expected 1 to 5"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
