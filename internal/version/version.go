// Package version reports the versions of the software a run used, for
// the environment record of every result.
package version

import (
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

// Chaosbench returns this binary's version: the module version, or the VCS
// revision when built from a checkout with VCS stamping, else "devel".
func Chaosbench() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
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
