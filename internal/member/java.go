package member

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/kafkarelease"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The java client's member is a Java program (java/, a Maven project) on
// Apache Kafka's own client, kafka-clients, at the broker's version
// (kafkarelease.Version). Its sources are embedded in this binary and
// built once, with Maven, into a cache folder keyed by their hash and the
// version; `chaos member --client java` then replaces itself with the JVM
// (execve), passing its own flags (Config.Args). The driver's process, its
// pid, its signals, its parent-death signal and its control channel on
// standard input are therefore the JVM's, exactly as for the Go members.
//
//go:embed java/pom.xml java/src
var javaSources embed.FS

// javaMain is the Java program's main class.
const javaMain = "chaosbench.member.Main"

// javaOptions are the JVM's options: a small heap and the serial collector,
// as befits one of many small processes on a shared machine, and the
// client compiler only (-XX:TieredStopAtLevel=1): measured side by side
// (make bench-member-java, docs/host-capacity.md), C2's compilation of the
// member's own code made it use 40% more CPU per record than C1 alone,
// which matches a bare consumer's, and nearly twice the CPU at idle.
// slf4j-simple prints the client's warnings and errors, timestamped, to
// the member's log.
var javaOptions = []string{
	"-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
	"-Dorg.slf4j.simpleLogger.showDateTime=true",
	"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
}

// JavaOptionsEnv names the environment variable whose options (separated
// by spaces) the java member's JVM takes after its own, so that they win:
// a larger heap, another collector, compilation limits. A cell's record
// keeps the options its members ran with (Versions.JavaOptions).
const JavaOptionsEnv = "CHAOSBENCH_JAVA_OPTIONS"

// JavaOptions returns the options the java member's JVM runs with: its
// own, then those of JavaOptionsEnv.
func JavaOptions() []string {
	return append(slices.Clone(javaOptions), strings.Fields(os.Getenv(JavaOptionsEnv))...)
}

// JavaMember is a built Java member program.
type JavaMember struct {
	Java      string // the java binary
	Classpath string
}

// Command returns the command line that runs the program with args.
func (j JavaMember) Command(args ...string) []string {
	cmd := append([]string{j.Java}, JavaOptions()...)
	cmd = append(cmd, "-cp", j.Classpath, javaMain)
	return append(cmd, args...)
}

// javaEnv is the JVM's environment: the JVM decodes its arguments with the
// locale's charset, and Go renders microseconds as "µs"; a UTF-8 locale
// keeps that and any non-ASCII path intact.
func javaEnv() []string {
	return append(os.Environ(), "LC_ALL=C.UTF-8")
}

// javaSourceHash is the hash of the embedded sources and the Kafka
// version: the build's cache key.
func javaSourceHash() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "kafka %s\n", kafkarelease.Version)
	var paths []string
	err := fs.WalkDir(javaSources, "java", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	slices.Sort(paths)
	for _, p := range paths {
		data, err := javaSources.ReadFile(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", p, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// javaBuildDir is where the build lives: <cache>/java-member-<version>-<hash>.
func javaBuildDir() (string, error) {
	cache, err := kafkarelease.CacheDir()
	if err != nil {
		return "", err
	}
	hash, err := javaSourceHash()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "java-member-"+kafkarelease.Version+"-"+hash), nil
}

// javaCommand returns the java binary ($JAVA_HOME/bin/java, else java on
// PATH) after checking that it is Java kafkarelease.MinJava or newer.
func javaCommand() (string, error) {
	java, where := "java", "java on PATH (or JAVA_HOME)"
	if h := os.Getenv("JAVA_HOME"); h != "" {
		java, where = filepath.Join(h, "bin", "java"), "JAVA_HOME="+h
	}
	path, err := exec.LookPath(java)
	if err != nil {
		return "", fmt.Errorf("--client java needs Java %d or newer: no %s (%v)", kafkarelease.MinJava, where, err)
	}
	out, err := exec.Command(path, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("--client java: %s -version: %v\n%s", path, err, out)
	}
	major, err := kafkarelease.JavaMajor(string(out))
	if err != nil {
		return "", fmt.Errorf("--client java: %s -version: %v", path, err)
	}
	if major < kafkarelease.MinJava {
		return "", fmt.Errorf("--client java: %s is Java %d; kafka-clients %s needs Java %d or newer (set JAVA_HOME)", path, major, kafkarelease.Version, kafkarelease.MinJava)
	}
	return path, nil
}

// JavaVersions returns the java client's versions for a cell's record:
// kafka-clients (the broker's release) and the JVM's first line of
// `java -version` ("unknown" if it cannot be run).
func JavaVersions() (kafkaClients, jvm string) {
	jvm = "unknown"
	if java, err := javaCommand(); err == nil {
		if out, err := exec.Command(java, "-version").CombinedOutput(); err == nil {
			jvm, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
		}
	}
	return kafkarelease.Version, jvm
}

// toolError is a missing or unfit tool (a JVM, Maven): bad input for the
// member, reported before anything starts.
type toolError struct{ err error }

func (e *toolError) Error() string { return e.err.Error() }
func (e *toolError) Unwrap() error { return e.err }

// BuildJava checks the JVM and returns the Java member program, building
// it first if this version of its sources has not been built yet. Maven
// fetches kafka-clients and its plugins from Maven Central on the first
// build; progress goes to log. Concurrent builds (members starting at
// once) wait for one another through a lock file, and a build lands in
// its folder only when it succeeded.
func BuildJava(ctx context.Context, log io.Writer) (JavaMember, error) {
	java, err := javaCommand()
	if err != nil {
		return JavaMember{}, &toolError{err}
	}
	dir, err := javaBuildDir()
	if err != nil {
		return JavaMember{}, err
	}
	j := JavaMember{Java: java, Classpath: filepath.Join(dir, "classes") + string(os.PathListSeparator) + filepath.Join(dir, "lib", "*")}
	marker := filepath.Join(dir, completeMarker)
	if _, err := os.Stat(marker); err == nil {
		return j, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return JavaMember{}, &toolError{fmt.Errorf("--client java is built once with Maven (mvn), which is not on PATH: install Maven 3 (it fetches kafka-clients %s from Maven Central)", kafkarelease.Version)}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return JavaMember{}, err
	}
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return JavaMember{}, err
	}
	defer unlock()
	if _, err := os.Stat(marker); err == nil {
		return j, nil // built while we waited
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".java-member-")
	if err != nil {
		return JavaMember{}, err
	}
	defer os.RemoveAll(tmp)
	if err := extractJavaSources(tmp); err != nil {
		return JavaMember{}, err
	}
	fmt.Fprintf(log, "building the java member (kafka-clients %s) with Maven into %s\n", kafkarelease.Version, dir)
	cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "-Dkafka.version="+kafkarelease.Version, "package")
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return JavaMember{}, fmt.Errorf("building the java member: mvn package (kafka-clients %s): %w\n%s", kafkarelease.Version, err, tail(out.String(), 30))
	}
	target := filepath.Join(tmp, "target")
	if err := os.WriteFile(filepath.Join(target, completeMarker), []byte(kafkarelease.Version+"\n"), 0o644); err != nil {
		return JavaMember{}, err
	}
	_ = os.RemoveAll(dir) // an incomplete copy
	if err := os.Rename(target, dir); err != nil {
		return JavaMember{}, err
	}
	return j, nil
}

const completeMarker = ".complete"

// extractJavaSources writes the embedded Maven project into dir.
func extractJavaSources(dir string) error {
	return fs.WalkDir(javaSources, "java", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, strings.TrimPrefix(p, "java"))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := javaSources.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// lockFile takes an exclusive lock on path (created if need be), waiting
// for it; the returned function releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// execJava replaces this process with the Java member (it returns only on
// failure). cfg has been validated and its defaults filled.
func execJava(cfg Config) error {
	j, err := BuildJava(context.Background(), os.Stderr)
	if err != nil {
		return err
	}
	// The properties by Kafka's Java names (kafkaconf.JavaProps); the
	// secret ones go on in the environment, as they came (ReadEnv cleared
	// the variable from this process's own), with those the translation
	// makes (a JAAS configuration, a client key).
	if cfg.Props, err = cfg.Props.JavaProps(); err != nil {
		return &configError{err} // validate checked it: a file changed since
	}
	argv := j.Command(cfg.Args()...)
	err = syscall.Exec(j.Java, argv, append(javaEnv(), cfg.Env()...))
	return fmt.Errorf("exec %s: %w", j.Java, err)
}

// javaChecks remembers the outcome of each distinct configuration checked
// in this process: chaos run checks every java cell, and most share one.
var javaChecks sync.Map // key -> error (nil stored as a nil error value)

// checkJava checks a java member's configuration: its properties'
// translation into Java's names (kafkaconf.JavaProps), the JVM, the build,
// and then the Java program itself, in its --check mode, which reads the
// configuration as a member would and has Kafka's client validate the
// properties without connecting anywhere.
func checkJava(strategy string, static bool, props kafkaconf.Props) error {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range props {
			if !yield(k + "=" + props[k]) {
				return
			}
		}
	})
	key := fmt.Sprintf("%s|%s|%s|%v|%s", os.Getenv("JAVA_HOME"), os.Getenv("PATH"), strategy, static, strings.Join(keys, "\x00"))
	if v, ok := javaChecks.Load(key); ok {
		err, _ := v.(error)
		return err
	}
	err := runJavaCheck(strategy, static, props)
	javaChecks.Store(key, err)
	return err
}

func runJavaCheck(strategy string, static bool, props kafkaconf.Props) error {
	props, err := props.JavaProps()
	if err != nil {
		return err
	}
	j, err := BuildJava(context.Background(), os.Stderr)
	if err != nil {
		return err
	}
	cfg := Defaults()
	cfg.Name, cfg.HistoryDir = "check", os.TempDir()
	cfg.Bootstrap = "127.0.0.1:9092" // read, never connected to
	cfg.Group, cfg.Topic = "chaosbench-check", "chaosbench-check"
	cfg.Client, cfg.Strategy, cfg.Static, cfg.Props = vocab.ClientJava, strategy, static, props
	argv := j.Command(append([]string{"--check"}, cfg.Args()...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(javaEnv(), cfg.Env()...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		msg := strings.TrimSpace(string(out))
		msg = strings.TrimPrefix(msg[strings.LastIndex(msg, "\n")+1:], "chaos member: ")
		return errors.New(msg)
	}
	return fmt.Errorf("checking the java member's configuration: %v\n%s", err, tail(string(out), 20))
}
