package cluster

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/chaosbench/chaosbench/internal/kafkarelease"
)

// KafkaVersion is the Apache Kafka release the local provider fetches from
// Maven Central, pinned in one place, package kafkarelease: the Maven
// projects that fetch it, the cache folder and every result record take it
// from there.
const KafkaVersion = kafkarelease.Version

// distPOM lists what a broker needs from Maven Central: kafka_2.13 (server,
// raft, metadata, storage, coordinators, clients, Scala), a log4j2 binding
// for its slf4j logging, and kafka-tools for Kafka's own perf tools, which
// the benchmarks run side by side with ours.
//
//go:embed dist-pom.xml
var distPOM []byte

// Dist is a Kafka distribution: a folder of jars to put on the classpath.
type Dist struct {
	// Libs is the folder holding the jars.
	Libs string
	// Version is the Kafka version of the jars.
	Version string
	// Source says where it came from: "KAFKA_HOME" or "maven cache".
	Source string
}

// Classpath returns the java -cp value for the distribution.
func (d Dist) Classpath() string { return filepath.Join(d.Libs, "*") }

// CacheDir is the folder holding fetched distributions: CHAOSBENCH_CACHE if
// set, else chaosbench/ under the user's cache folder (~/.cache). It is never
// inside the source tree.
func CacheDir() (string, error) { return kafkarelease.CacheDir() }

func cachedDistDir(cache string) string {
	return filepath.Join(cache, "kafka_2.13-"+KafkaVersion)
}

const completeMarker = ".complete"

// FindDist locates the Kafka distribution: KAFKA_HOME when set, else the
// fetched jars in the cache. It does not fetch.
func FindDist() (Dist, error) {
	if home := os.Getenv("KAFKA_HOME"); home != "" {
		libs := filepath.Join(home, "libs")
		v, err := jarVersion(libs)
		if err != nil {
			return Dist{}, fmt.Errorf("KAFKA_HOME=%s: %w", home, err)
		}
		return Dist{Libs: libs, Version: v, Source: "KAFKA_HOME"}, nil
	}
	cache, err := CacheDir()
	if err != nil {
		return Dist{}, err
	}
	dir := cachedDistDir(cache)
	if _, err := os.Stat(filepath.Join(dir, completeMarker)); err != nil {
		return Dist{}, fmt.Errorf("Kafka %s jars not in %s: run `make kafka-fetch` (or `chaos cluster fetch`), or set KAFKA_HOME", KafkaVersion, dir)
	}
	return Dist{Libs: filepath.Join(dir, "libs"), Version: KafkaVersion, Source: "maven cache"}, nil
}

var kafkaJar = regexp.MustCompile(`^kafka-clients-([0-9][0-9A-Za-z.\-]*)\.jar$`)

// jarVersion reads the Kafka version off the kafka-clients jar's name.
func jarVersion(libs string) (string, error) {
	entries, err := os.ReadDir(libs)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if m := kafkaJar.FindStringSubmatch(e.Name()); m != nil && !strings.Contains(m[1], "test") {
			return m[1], nil
		}
	}
	return "", fmt.Errorf("no kafka-clients-<version>.jar in %s", libs)
}

// FetchDist makes sure the pinned Kafka version's jars are in the cache,
// fetching them with Maven from Maven Central if not. Progress goes to log.
// The jars land in a temporary folder that is renamed into place only when
// Maven succeeded, so an interrupted fetch leaves nothing half-written.
func FetchDist(ctx context.Context, log io.Writer) (Dist, error) {
	if d, err := FindDist(); err == nil {
		return d, nil
	}
	if os.Getenv("KAFKA_HOME") != "" {
		return FindDist()
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return Dist{}, errors.New("fetching Kafka jars needs Maven (mvn) on PATH, or set KAFKA_HOME to a Kafka distribution")
	}
	cache, err := CacheDir()
	if err != nil {
		return Dist{}, err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Dist{}, err
	}
	tmp, err := os.MkdirTemp(cache, ".fetch-")
	if err != nil {
		return Dist{}, err
	}
	defer os.RemoveAll(tmp)
	pom := filepath.Join(tmp, "pom.xml")
	if err := os.WriteFile(pom, distPOM, 0o644); err != nil {
		return Dist{}, err
	}
	libs := filepath.Join(tmp, "dist", "libs")
	cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "-f", pom,
		"-Dkafka.version="+KafkaVersion,
		"dependency:copy-dependencies",
		"-DincludeScope=runtime",
		"-DoutputDirectory="+libs)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(log, &out)
	cmd.Stderr = io.MultiWriter(log, &out)
	fmt.Fprintf(log, "fetching Apache Kafka %s jars from Maven Central into %s\n", KafkaVersion, cachedDistDir(cache))
	if err := cmd.Run(); err != nil {
		return Dist{}, fmt.Errorf("mvn dependency:copy-dependencies for kafka_2.13 %s: %w\n%s", KafkaVersion, err, tail(out.String(), 20))
	}
	if v, err := jarVersion(libs); err != nil || v != KafkaVersion {
		return Dist{}, fmt.Errorf("fetched jars in %s: expected kafka-clients-%s.jar (found version %q, %v)", libs, KafkaVersion, v, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "dist", completeMarker), []byte(KafkaVersion+"\n"), 0o644); err != nil {
		return Dist{}, err
	}
	final := cachedDistDir(cache)
	_ = os.RemoveAll(final) // a previous incomplete copy
	if err := os.Rename(filepath.Join(tmp, "dist"), final); err != nil {
		return Dist{}, err
	}
	return FindDist()
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// JavaCommand returns the java binary to use ($JAVA_HOME/bin/java, else java
// on PATH) after checking that it is Java kafkarelease.MinJava or newer,
// which Kafka 4 needs.
func JavaCommand() (string, error) {
	java := "java"
	if h := os.Getenv("JAVA_HOME"); h != "" {
		java = filepath.Join(h, "bin", "java")
	}
	path, err := exec.LookPath(java)
	if err != nil {
		return "", fmt.Errorf("the local Kafka provider needs Java %d+: %w", kafkarelease.MinJava, err)
	}
	out, err := exec.Command(path, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s -version: %w", path, err)
	}
	major, err := kafkarelease.JavaMajor(string(out))
	if err != nil {
		return "", fmt.Errorf("%s -version: %w", path, err)
	}
	if major < kafkarelease.MinJava {
		return "", fmt.Errorf("%s is Java %d; Kafka %s needs Java %d or newer (set JAVA_HOME)", path, major, KafkaVersion, kafkarelease.MinJava)
	}
	return path, nil
}
