package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
)

// marker is the secret of TestSecuredCluster: the user's password, the
// client key's password. It must never be found in clear anywhere a run
// writes or prints.
const marker = "Mk7-secret-do-not-leak"

// TestSecuredCluster starts one broker with TLS and SASL listeners and
// runs every client and every command that takes client properties
// against it.
func TestSecuredCluster(t *testing.T) {
	kafkatest.Require(t)
	sc := kafkatest.Secured(t, "alice", marker)

	// Each mechanism, on each client, at the connection level.
	for _, tc := range []struct{ listener, mechanism string }{
		{kafkatest.ListenerSSL, ""},
		{kafkatest.ListenerSASLSSL, "SCRAM-SHA-512"},
		{kafkatest.ListenerSASL, "PLAIN"},
		{kafkatest.ListenerSASL, "SCRAM-SHA-256"},
		{kafkatest.ListenerSASL, "SCRAM-SHA-512"},
		{kafkatest.ListenerSASL, "OAUTHBEARER"},
	} {
		name := tc.listener + "/" + tc.mechanism
		bootstrap := sc.ListenerBootstrap(t, tc.listener)
		props := sc.Props(tc.listener, tc.mechanism)
		t.Run("connect/"+name+"/franz", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ext, err := cluster.OpenExternal(ctx, bootstrap, props)
			if err != nil {
				t.Fatal(err)
			}
			defer ext.Close(ctx)
			info, err := ext.Info(ctx)
			if err != nil || info.Brokers != 1 {
				t.Fatalf("info %+v, %v", info, err)
			}
		})
		t.Run("connect/"+name+"/confluent", func(t *testing.T) {
			confluentMetadata(t, bootstrap, props, true)
		})
	}
	// And the checks are real: a wrong password, an unknown authority fail.
	t.Run("refused", func(t *testing.T) {
		wrong := sc.Props(kafkatest.ListenerSASLSSL, "SCRAM-SHA-512")
		wrong["sasl.password"] = "not-" + marker
		untrusted := sc.Props(kafkatest.ListenerSSL, "")
		untrusted["ssl.ca.location"] = sc.Certs.ClientCert
		for listener, props := range map[string]kafkaconf.Props{kafkatest.ListenerSASLSSL: wrong, kafkatest.ListenerSSL: untrusted} {
			bootstrap := sc.ListenerBootstrap(t, listener)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			if ext, err := cluster.OpenExternal(ctx, bootstrap, props); err == nil {
				ext.Close(ctx)
				t.Errorf("franz reached %s with %v", listener, props)
			}
			cancel()
			confluentMetadata(t, bootstrap, props, false)
		}
	})

	t.Run("commands", func(t *testing.T) { securedCommands(t, sc) })
}

// securedCommands runs every command that takes client properties (chaos
// run, chaos bench, loadgen run, chaos cluster status) against the secured
// cluster as an external one, the secret given with -X to some and in a
// file (-F) to the others, covering TLS with a client certificate and
// SCRAM-SHA-512 over TLS on both member clients and both producer
// clients. Then the marker is looked for everywhere: every file under the
// results, every command's output, and, while they ran, the command line
// of every process but the command itself (whose -X the user typed).
func securedCommands(t *testing.T, sc *kafkatest.SecuredCluster) {
	chaosBin, loadgenBin := testBinaries(t)
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	workload := func(name, producer string) string {
		path := filepath.Join(dir, name+".yaml")
		w := fmt.Sprintf(`name: %s
seed: 7
duration: 4s
topic: {partitions: 3}
keys: {count: 20}
producer: {client: %s, rate: 200}
consumer:
  members: 2
  processing: {cost: 0s}
  session_timeout: 6s
  heartbeat_interval: 1s
  max_poll_interval: 30s
strategies: [range]
clients: [confluent, franz]
chaos: {drain_timeout: 30s}
`, name, producer)
		if err := os.WriteFile(path, []byte(w), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	propsFile := func(name string, p kafkaconf.Props) string {
		path := filepath.Join(dir, name+".properties")
		var b strings.Builder
		b.WriteString("# client properties of the test\n")
		for k, v := range p {
			fmt.Fprintf(&b, "%s=%s\n", k, strings.ReplaceAll(v, `\`, `\\`))
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	xFlags := func(p kafkaconf.Props) []string {
		var out []string
		for k, v := range p {
			out = append(out, "-X", k+"="+v)
		}
		return out
	}
	scram := sc.Props(kafkatest.ListenerSASLSSL, "SCRAM-SHA-512")
	scramAt := sc.ListenerBootstrap(t, kafkatest.ListenerSASLSSL)
	tls := sc.Props(kafkatest.ListenerSSL, "")
	tlsAt := sc.ListenerBootstrap(t, kafkatest.ListenerSSL)
	tlsFile := propsFile("tls", tls)

	var output bytes.Buffer
	run := func(bin string, args ...string) {
		t.Helper()
		out, leaks, err := runWatched(bin, args...)
		output.Write(out)
		for _, l := range leaks {
			t.Errorf("%s %s: the secret is on the command line of another process: %s", filepath.Base(bin), args[0], l)
		}
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(kafkaconf.RedactArgs(args), " "), err, out)
		}
	}
	// SCRAM over TLS: members on both clients, the franz producer; the
	// password on the command line.
	run(chaosBin, append([]string{"run", "--results", results, "--bootstrap", scramAt, workload("scram", "franz")}, xFlags(scram)...)...)
	// TLS with a client certificate: members on both clients, the
	// confluent producer; the key's password in a file; flags after the
	// workload, as a Kafka user would type them.
	run(chaosBin, "bench", workload("tls", "confluent"), "--results", results, "--bootstrap", tlsAt, "-F", tlsFile)
	// The producers alone, each on the other listener.
	run(loadgenBin, append([]string{"run", "--out", filepath.Join(results, "loadgen-scram"), "--bootstrap", scramAt, "--quiet", "--records", "200",
		workload("lg-confluent", "confluent")}, xFlags(scram)...)...)
	run(loadgenBin, "run", "--out", filepath.Join(results, "loadgen-tls"), "--bootstrap", tlsAt, "--quiet", "--records", "200",
		"-F", tlsFile, workload("lg-franz", "franz"))
	run(chaosBin, append([]string{"cluster", "status", "--json", "--bootstrap", scramAt}, xFlags(scram)...)...)

	// Every cell ran to the end: the clients did reach the cluster.
	cells := 0
	filepath.WalkDir(results, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "cell.json" {
			return err
		}
		cells++
		var c struct {
			Complete         bool              `json:"complete"`
			DrainComplete    bool              `json:"drain_complete"`
			ClientProperties map[string]string `json:"client_properties"`
		}
		b, _ := os.ReadFile(path)
		if err := json.Unmarshal(b, &c); err != nil || !c.Complete || !c.DrainComplete {
			t.Errorf("%s: not complete, or not drained (%v)", path, err)
		}
		if c.ClientProperties["security.protocol"] == "" {
			t.Errorf("%s: client_properties lacks security.protocol: %v", path, c.ClientProperties)
		}
		return nil
	})
	if cells != 4 {
		t.Errorf("%d cells, want 4", cells)
	}
	// run.json records the command line, the secret masked.
	runs, _ := filepath.Glob(filepath.Join(results, "*-scram", "run.json"))
	if len(runs) != 1 {
		t.Fatalf("run.json of the scram run: %v", runs)
	}
	if b, _ := os.ReadFile(runs[0]); !strings.Contains(string(b), "sasl.password="+kafkaconf.Mask) {
		t.Errorf("%s does not record the masked password:\n%s", runs[0], b)
	}

	// Nowhere in clear.
	if bytes.Contains(output.Bytes(), []byte(marker)) {
		t.Errorf("the commands' output holds the secret")
	}
	files := 0
	filepath.WalkDir(results, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return nil
		}
		if bytes.Contains(b, []byte(marker)) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	t.Logf("%d files under the results, and the output of 5 commands, checked", files)
}

// stillHolds reports whether a process's command line still holds the
// marker a moment later. A child the command is starting holds the
// command's own command line between its fork and its exec: that is no
// leak.
func stillHolds(pid string) bool {
	for range 3 {
		time.Sleep(30 * time.Millisecond)
		b, err := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			return false
		}
	}
	return true
}

// runWatched runs a command and returns its output (stdout and stderr).
// While it runs, the command line of every process of the host but the
// command itself is searched for the marker: leaks lists those found.
func runWatched(bin string, args ...string) (out []byte, leaks []string, err error) {
	cmd := exec.Command(bin, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var mu sync.Mutex
	seen := map[string]bool{}
	self := strconv.Itoa(cmd.Process.Pid)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err = <-done:
			mu.Lock()
			for l := range seen {
				leaks = append(leaks, l)
			}
			mu.Unlock()
			return buf.Bytes(), leaks, err
		case <-tick.C:
			procs, _ := os.ReadDir("/proc")
			for _, p := range procs {
				if p.Name() == self || p.Name()[0] < '0' || p.Name()[0] > '9' {
					continue
				}
				b, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
				if err == nil && bytes.Contains(b, []byte(marker)) && stillHolds(p.Name()) {
					mu.Lock()
					seen["pid "+p.Name()+" (the command is pid "+self+"): "+string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))] = true
					mu.Unlock()
				}
			}
		}
	}
}

// confluentMetadata asks the broker for metadata with librdkafka, and
// checks that it answers (ok) or does not.
func confluentMetadata(t *testing.T, bootstrap string, props kafkaconf.Props, ok bool) {
	t.Helper()
	cm := kafka.ConfigMap{"bootstrap.servers": bootstrap, "log_level": 0}
	for k, v := range props {
		cm[k] = v
	}
	adm, err := kafka.NewAdminClient(&cm)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	timeout := 20000
	if !ok {
		timeout = 5000
	}
	md, err := adm.GetMetadata(nil, false, timeout)
	switch {
	case ok && err != nil:
		t.Fatal(err)
	case ok && len(md.Brokers) != 1:
		t.Errorf("metadata: %d brokers", len(md.Brokers))
	case !ok && err == nil:
		t.Errorf("librdkafka reached %s with %v", bootstrap, props)
	}
}
