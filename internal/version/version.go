// Package version reports the versions of the software a run used, for
// the environment record of every result.
package version

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// Module returns the version of a dependency module as built into this
// binary, or "unknown".
func Module(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "unknown"
}

// stamp is the version the Makefile stamps into the binaries it builds
// (-ldflags -X, from git describe), for builds where the Go toolchain
// records no version control information (GOFLAGS=-buildvcs=false, or a
// checkout the toolchain does not recognise).
var stamp string

// Chaosbench returns this binary's version: the module version Go
// recorded (a release tag, or a pseudo-version from the commit, with
// +dirty for uncommitted changes), else the commit itself (with +dirty),
// else what the Makefile stamped, else "devel".
func Chaosbench() string {
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) >= 12 {
			if dirty {
				return rev[:12] + "+dirty"
			}
			return rev[:12]
		}
	}
	if stamp != "" {
		return stamp
	}
	return "devel"
}

// Librdkafka returns the version of the librdkafka linked in.
func Librdkafka() string {
	_, s := kafka.LibraryVersion()
	return s
}

// FranzGo returns franz-go's module version.
func FranzGo() string { return Module("github.com/twmb/franz-go") }

// ConfluentKafkaGo returns confluent-kafka-go's module version.
func ConfluentKafkaGo() string { return Module("github.com/confluentinc/confluent-kafka-go/v2") }

// Go returns the Go version the binary was built with.
func Go() string { return runtime.Version() }

// Print writes what `chaos --version` and `loadgen --version` print: the
// command and chaosbench's version, then one line per component (Go, the
// client libraries, and extra, such as the Kafka version the providers
// run).
func Print(w io.Writer, command string, extra ...[2]string) {
	fmt.Fprintf(w, "%s %s (chaosbench)\n", command, Chaosbench())
	lines := [][2]string{
		{"go", Go() + " " + runtime.GOOS + "/" + runtime.GOARCH},
		{"librdkafka", Librdkafka() + " (confluent-kafka-go " + ConfluentKafkaGo() + ")"},
		{"franz-go", FranzGo()},
	}
	for _, l := range append(lines, extra...) {
		fmt.Fprintf(w, "  %-11s %s\n", l[0], l[1])
	}
}
