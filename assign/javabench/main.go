// Command javabench runs chaosbench's assignor models and Kafka's own Java
// assignors on the same inputs, side by side, in one run: first a
// cross-check (identical assignments on random small groups), then a
// timing table with ratios. `make bench-assign` runs it.
//
//	go run ./assign/javabench [-check N] [-shapes quick|full|none|NAME,...] [-strategies all|NAME,...] [-seed S]
//
// It builds the Java timing program in this folder with Maven, passing
// -Dkafka.version from cluster.KafkaVersion (kafkarelease.Version, where
// the version is pinned).
package main

// The command's files: this one runs it; java.go is the Java program's
// side (its input format, running it); check.go and checkgroups.go the
// cross-check and its random groups; shapes.go the groups timed;
// timings.go the timing of both sides.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/internal/cluster"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "javabench:", err)
		if errors.As(err, new(usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad flag (exit status 2).
type usageError string

func (e usageError) Error() string { return string(e) }

func run() error {
	check := flag.Int("check", 2000, "random groups to cross-check against the Java assignors (0: none)")
	checkLarge := flag.Int("check-large", 50, "larger random groups to cross-check (with -check above 0)")
	shapes := flag.String("shapes", "full", "timing shapes: quick (up to 2,125 members), full (up to 10,000 members, 100,000 partitions), none (the cross-check only) or a comma-separated list of shape names")
	strategies := flag.String("strategies", "all", "strategies to time: all or a comma-separated list")
	flag.DurationVar(&warmup, "warmup", warmup, "how long each side runs an assignor before timing it (the JVM compiles hot code meanwhile)")
	flag.DurationVar(&measureFor, "measure", measureFor, "how long each side goes on timing runs after the shape's minimum number of runs")
	seed := flag.Uint64("seed", 1, "seed of the random groups")
	javaTimeout := flag.Duration("java-timeout", 5*time.Minute, "how long one Java timing may take before it is reported as a timeout")
	dir := flag.String("dir", "", "the folder of pom.xml (default: this command's source folder)")
	keep := flag.Bool("keep", false, "keep the generated input files (their folder is printed)")
	flag.Parse()
	if flag.NArg() > 0 {
		return usageError(fmt.Sprintf("unexpected argument %q", flag.Arg(0)))
	}
	list, err := selectShapes(*shapes)
	if err != nil {
		return err
	}
	names := assign.Names()
	if *strategies != "all" {
		names = strings.Split(*strategies, ",")
		for _, n := range names {
			if _, err := assign.Lookup(n); err != nil {
				return usageError("-strategies: " + err.Error())
			}
		}
	}

	if *dir == "" {
		_, file, _, _ := runtime.Caller(0)
		*dir = filepath.Dir(file)
	}
	classpath, err := build(*dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "assign-javabench-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Println("inputs kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	if *check > 0 {
		if err := crossCheck(classpath, tmp, *check, *checkLarge, *seed); err != nil {
			return err
		}
	}
	if len(list) == 0 {
		return nil
	}
	return timings(classpath, tmp, list, names, *seed, *javaTimeout)
}

// build packages the Java program and returns its class path.
func build(dir string) (string, error) {
	fmt.Printf("building the Java timing program (Kafka %s) in %s\n", cluster.KafkaVersion, dir)
	cmd := exec.Command("mvn", "-q", "-B", "-Dkafka.version="+cluster.KafkaVersion, "package")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("mvn package in %s: %w\n%s", dir, err, out)
	}
	deps, err := os.ReadFile(filepath.Join(dir, "target", "classpath.txt"))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "target", "classes") + string(os.PathListSeparator) + strings.TrimSpace(string(deps)), nil
}
