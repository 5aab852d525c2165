package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/procutil"
)

// LocalConfig configures the local provider: real Apache Kafka brokers in
// KRaft combined (broker+controller) mode on 127.0.0.1, as child processes.
type LocalConfig struct {
	// Nodes is the number of brokers, 1 (the default) or 3.
	Nodes int
	// Dir holds the nodes' configuration and data. Empty: a temporary folder,
	// removed by Close.
	Dir string
	// LogDir receives one log file per node (node-<id>.log). Empty: Dir/logs.
	LogDir string
	// Port is the first node's client port; node i listens on Port+i-1.
	// 0 (the default) picks free ports.
	Port int
	// HeapMB is each node's Java heap (-Xms and -Xmx), default 1024, as
	// Kafka's own start script.
	HeapMB int
	// Settings override broker properties (server.properties), on top of
	// the provider's defaults (see DefaultLocalSettings).
	Settings Settings
	// Detached lets the brokers outlive this process (`chaos cluster up`):
	// they get a session of their own instead of a parent-death signal, and
	// the cluster is described in Dir/state.json for `cluster down`.
	Detached bool
	// ReadyTimeout bounds start-up, default 120s.
	ReadyTimeout time.Duration
}

// DefaultLocalSettings returns the broker properties the local provider
// sets for an n-node cluster before applying LocalConfig.Settings. Group
// timings are left at Kafka's defaults: a workload sets the ones it needs,
// and every result records the effective values.
func DefaultLocalSettings(n int) Settings {
	rf, isr := "1", "1"
	if n >= 3 {
		rf, isr = "3", "2"
	}
	return Settings{
		"offsets.topic.replication.factor":                 rf,
		"transaction.state.log.replication.factor":         rf,
		"transaction.state.log.min.isr":                    isr,
		"share.coordinator.state.topic.replication.factor": rf,
		"share.coordinator.state.topic.min.isr":            isr,
		"default.replication.factor":                       rf,
		"min.insync.replicas":                              isr,
	}
}

// Local is a cluster of real Kafka processes on loopback.
type Local struct {
	cfg       LocalConfig
	dist      Dist
	java      string
	clusterID string
	dir       string
	tempDir   bool
	settings  Settings

	mu    sync.Mutex
	nodes []*localNode
	adm   *kadm.Client
}

type localNode struct {
	ID             int    `json:"id"`
	Port           int    `json:"port"`
	ControllerPort int    `json:"controller_port"`
	Dir            string `json:"dir"`
	Log            string `json:"log"`
	PID            int    `json:"pid"`

	proc *procutil.Proc // nil when attached from state.json
}

func (n *localNode) address() string { return fmt.Sprintf("127.0.0.1:%d", n.Port) }

// LocalAvailable says whether the local provider can start: Java 17+ and a
// Kafka distribution (KAFKA_HOME or fetched jars).
func LocalAvailable(LocalConfig) error {
	if _, err := JavaCommand(); err != nil {
		return err
	}
	_, err := FindDist()
	return err
}

// StartLocal formats and starts a local cluster and waits until it is ready:
// every broker registered and the group coordinator answering.
func StartLocal(ctx context.Context, cfg LocalConfig) (_ *Local, err error) {
	if cfg.Nodes == 0 {
		cfg.Nodes = 1
	}
	if cfg.Nodes != 1 && cfg.Nodes != 3 {
		return nil, fmt.Errorf("local cluster: %d nodes: expected 1 or 3", cfg.Nodes)
	}
	if cfg.HeapMB == 0 {
		cfg.HeapMB = 1024
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 120 * time.Second
	}
	java, err := JavaCommand()
	if err != nil {
		return nil, err
	}
	dist, err := FindDist()
	if err != nil {
		return nil, err
	}
	l := &Local{cfg: cfg, dist: dist, java: java}
	if cfg.Dir == "" {
		l.dir, err = os.MkdirTemp("", "chaosbench-kafka-")
		if err != nil {
			return nil, err
		}
		l.tempDir = true
	} else {
		l.dir, err = filepath.Abs(cfg.Dir)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(l.dir, 0o755); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			_ = l.Close(context.Background())
		}
	}()
	logDir := cfg.LogDir
	if logDir == "" {
		logDir = filepath.Join(l.dir, "logs")
	}
	if logDir, err = filepath.Abs(logDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	l.clusterID, err = newClusterID()
	if err != nil {
		return nil, err
	}
	l.settings = DefaultLocalSettings(cfg.Nodes).Merge(cfg.Settings)
	if err := checkReservedSettings(cfg.Settings); err != nil {
		return nil, err
	}

	ports, err := pickPorts(cfg.Port, cfg.Nodes)
	if err != nil {
		return nil, err
	}
	for i := 0; i < cfg.Nodes; i++ {
		id := i + 1
		n := &localNode{
			ID:             id,
			Port:           ports[2*i],
			ControllerPort: ports[2*i+1],
			Dir:            filepath.Join(l.dir, fmt.Sprintf("node-%d", id)),
			Log:            filepath.Join(logDir, fmt.Sprintf("node-%d.log", id)),
		}
		l.nodes = append(l.nodes, n)
	}
	for _, n := range l.nodes {
		if err := l.writeNodeConfig(n); err != nil {
			return nil, err
		}
	}
	// Format every node's storage (in parallel: each is a JVM start).
	var wg sync.WaitGroup
	errs := make([]error, len(l.nodes))
	for i, n := range l.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.format(ctx, n)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, n := range l.nodes {
		if err := l.startNode(n); err != nil {
			return nil, err
		}
	}
	l.adm, err = NewAdmin(l.Bootstrap(), nil)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.ReadyTimeout)
	defer cancel()
	if err := WaitReady(rctx, l.adm, l.NodeIDs(), l.allAlive); err != nil {
		return nil, err
	}
	if cfg.Detached {
		if err := l.saveState(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// reserved are the properties the provider must own: they say where the
// node listens and keeps its data.
var reserved = []string{"process.roles", "node.id", "controller.quorum.voters",
	"controller.quorum.bootstrap.servers", "listeners", "advertised.listeners",
	"controller.listener.names", "inter.broker.listener.name",
	"listener.security.protocol.map", "log.dirs", "log.dir"}

func checkReservedSettings(s Settings) error {
	for k := range s {
		if slices.Contains(reserved, k) {
			return fmt.Errorf("broker setting %s: set by the local provider (listeners and storage), not settable", k)
		}
	}
	return nil
}

func (l *Local) voters() string {
	var vs []string
	for _, n := range l.nodes {
		vs = append(vs, fmt.Sprintf("%d@127.0.0.1:%d", n.ID, n.ControllerPort))
	}
	return strings.Join(vs, ",")
}

func (l *Local) writeNodeConfig(n *localNode) error {
	if err := os.MkdirAll(filepath.Join(n.Dir, "data"), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# written by chaosbench's local provider\n")
	fmt.Fprintf(&b, "process.roles=broker,controller\nnode.id=%d\n", n.ID)
	fmt.Fprintf(&b, "controller.quorum.voters=%s\n", l.voters())
	fmt.Fprintf(&b, "listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d\n", n.Port, n.ControllerPort)
	fmt.Fprintf(&b, "advertised.listeners=PLAINTEXT://127.0.0.1:%d\n", n.Port)
	b.WriteString("controller.listener.names=CONTROLLER\ninter.broker.listener.name=PLAINTEXT\n")
	b.WriteString("listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n")
	fmt.Fprintf(&b, "log.dirs=%s\n", filepath.Join(n.Dir, "data"))
	for _, k := range l.settings.Keys() {
		fmt.Fprintf(&b, "%s=%s\n", k, l.settings[k])
	}
	if err := os.WriteFile(filepath.Join(n.Dir, "server.properties"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(n.Dir, "log4j2.properties"), []byte(log4jConfig), 0o644)
}

// log4jConfig sends the broker's log to stdout, which the provider appends
// to the node's log file; the request log and the state-change log stay
// quiet.
const log4jConfig = `status = warn
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.state.name = state.change.logger
logger.state.level = WARN
logger.config.name = org.apache.kafka.common.config.AbstractConfig
logger.config.level = WARN
`

// brokerJVM are the broker's JVM options, as Kafka's start script sets them.
func brokerJVM(heapMB int) []string {
	return []string{
		fmt.Sprintf("-Xms%dm", heapMB), fmt.Sprintf("-Xmx%dm", heapMB),
		"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
		"-XX:+ExplicitGCInvokesConcurrent",
	}
}

// toolJVM are the options of the short-lived format tool: the quick
// compiler only and a serial collector start it about a second sooner.
var toolJVM = []string{"-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}

func (l *Local) javaArgs(n *localNode, jvm []string, mainClass string, args ...string) []string {
	a := append([]string(nil), jvm...)
	a = append(a, "-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile="+filepath.Join(n.Dir, "log4j2.properties"),
		"-cp", l.dist.Classpath(), mainClass)
	return append(a, args...)
}

func (l *Local) format(ctx context.Context, n *localNode) error {
	args := l.javaArgs(n, toolJVM, "kafka.tools.StorageTool",
		"format", "-t", l.clusterID, "-c", filepath.Join(n.Dir, "server.properties"))
	out, err := procutil.CombinedOutput(ctx, exec.Command(l.java, args...))
	if err != nil {
		return fmt.Errorf("node %d: kafka.tools.StorageTool format: %w\n%s", n.ID, err, tail(string(out), 15))
	}
	return nil
}

func (l *Local) startNode(n *localNode) error {
	logf, err := os.OpenFile(n.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "=== chaosbench: starting node %d at %s ===\n", n.ID, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(l.java, l.javaArgs(n, brokerJVM(l.cfg.HeapMB), "kafka.Kafka", filepath.Join(n.Dir, "server.properties"))...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Dir = n.Dir
	p, err := procutil.Start(cmd, l.cfg.Detached)
	if err != nil {
		return fmt.Errorf("node %d: start kafka.Kafka: %w", n.ID, err)
	}
	n.proc = p
	n.PID = p.PID()
	return nil
}

// allAlive reports the first node that exited, with the end of its log.
func (l *Local) allAlive() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.nodes {
		if n.proc != nil && n.proc.Exited() {
			return fmt.Errorf("node %d exited during start-up (%v); end of %s:\n%s",
				n.ID, n.proc.ExitErr(), n.Log, tailFile(n.Log, 15))
		}
	}
	return nil
}

// Bootstrap implements Cluster.
func (l *Local) Bootstrap() string {
	var addrs []string
	for _, n := range l.nodes {
		addrs = append(addrs, n.address())
	}
	return strings.Join(addrs, ",")
}

// Props implements Cluster: a local cluster needs no client properties.
func (l *Local) Props() kafkaconf.Props { return kafkaconf.Props{} }

// Dir returns the folder holding the nodes' configuration and data.
func (l *Local) Dir() string { return l.dir }

// NodeIDs implements Nodes.
func (l *Local) NodeIDs() []int {
	ids := make([]int, len(l.nodes))
	for i, n := range l.nodes {
		ids[i] = n.ID
	}
	return ids
}

// Info implements Cluster.
func (l *Local) Info(ctx context.Context) (Info, error) {
	info := Info{Provider: ProviderLocal, Bootstrap: l.Bootstrap(), KafkaVersion: l.dist.Version}
	l.mu.Lock()
	for _, n := range l.nodes {
		info.Nodes = append(info.Nodes, NodeInfo{ID: n.ID, PID: n.PID, Address: n.address(), Alive: n.alive(), Log: n.Log})
	}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := describe(ctx, l.adm, &info); err != nil {
		return info, err
	}
	return info, nil
}

func (n *localNode) alive() bool {
	if n.proc != nil {
		return !n.proc.Exited()
	}
	return procutil.Alive(n.PID, "kafka.Kafka")
}

func (l *Local) node(id int) (*localNode, error) {
	for _, n := range l.nodes {
		if n.ID == id {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no node %d (nodes: %v)", id, l.NodeIDs())
}

// KillNode implements Nodes.
func (l *Local) KillNode(id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.node(id)
	if err != nil {
		return err
	}
	return l.signalNode(n, syscall.SIGKILL, 10*time.Second)
}

// StopNode implements Nodes.
func (l *Local) StopNode(ctx context.Context, id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.node(id)
	if err != nil {
		return err
	}
	return l.stopNode(n)
}

// stopNode asks for a controlled shutdown and kills the node if it takes
// longer than 30s (a node whose quorum is gone may wait forever).
func (l *Local) stopNode(n *localNode) error {
	if err := l.signalNode(n, syscall.SIGTERM, 30*time.Second); err != nil {
		return l.signalNode(n, syscall.SIGKILL, 10*time.Second)
	}
	return nil
}

func (l *Local) signalNode(n *localNode, sig syscall.Signal, wait time.Duration) error {
	if n.proc != nil {
		return n.proc.SignalWait(sig, wait)
	}
	return procutil.SignalGroupWait(n.PID, "kafka.Kafka", sig, wait)
}

// StartNode implements Nodes.
func (l *Local) StartNode(ctx context.Context, id int) error {
	l.mu.Lock()
	n, err := l.node(id)
	if err == nil {
		if n.alive() {
			err = fmt.Errorf("node %d is running", id)
		} else {
			err = l.startNode(n)
		}
	}
	l.mu.Unlock()
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, l.cfg.ReadyTimeout)
	defer cancel()
	return WaitReady(rctx, l.adm, l.NodeIDs(), l.allAlive)
}

// Close implements Cluster: it stops every node (in parallel) and, for a
// temporary folder, removes it.
func (l *Local) Close(ctx context.Context) error {
	if l.adm != nil {
		l.adm.Close()
		l.adm = nil
	}
	l.mu.Lock()
	var wg sync.WaitGroup
	errs := make([]error, len(l.nodes))
	for i, n := range l.nodes {
		if !n.alive() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.stopNode(n)
		}()
	}
	wg.Wait()
	l.mu.Unlock()
	err := errors.Join(errs...)
	if l.cfg.Detached {
		_ = os.Remove(filepath.Join(l.dir, stateFile))
	}
	if l.tempDir {
		if rmErr := os.RemoveAll(l.dir); rmErr != nil && err == nil {
			err = rmErr
		}
	}
	return err
}

// newClusterID makes a Kafka cluster id: 16 random bytes, URL-safe base64
// without padding, as kafka.tools.StorageTool random-uuid prints (Kafka
// avoids ids that start with '-', which look like a command-line flag).
func newClusterID() (string, error) {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		id := base64.RawURLEncoding.EncodeToString(b[:])
		if !strings.HasPrefix(id, "-") {
			return id, nil
		}
	}
}

// pickPorts returns 2n ports: for node i, its client port at 2i and its
// controller port at 2i+1. With base != 0 the client ports are base,
// base+1, ...; all other ports are free ones chosen by the kernel.
func pickPorts(base, n int) ([]int, error) {
	ports := make([]int, 2*n)
	var hold []net.Listener
	defer func() {
		for _, l := range hold {
			l.Close()
		}
	}()
	free := func() (int, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		hold = append(hold, ln)
		return ln.Addr().(*net.TCPAddr).Port, nil
	}
	for i := 0; i < n; i++ {
		if base != 0 {
			p := base + i
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				return nil, fmt.Errorf("port %d for node %d: %w", p, i+1, err)
			}
			hold = append(hold, ln)
			ports[2*i] = p
		} else {
			p, err := free()
			if err != nil {
				return nil, err
			}
			ports[2*i] = p
		}
		p, err := free()
		if err != nil {
			return nil, err
		}
		ports[2*i+1] = p
	}
	return ports, nil
}

func tailFile(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return tail(string(b), lines)
}

// stateFile describes a detached cluster so that a later `chaos cluster
// status` or `down` can find its processes.
const stateFile = "state.json"

type localState struct {
	ClusterID string       `json:"cluster_id"`
	Version   string       `json:"kafka_version"`
	Libs      string       `json:"libs"`
	Settings  Settings     `json:"settings"`
	Nodes     []*localNode `json:"nodes"`
	Started   time.Time    `json:"started"`
}

func (l *Local) saveState() error {
	st := localState{ClusterID: l.clusterID, Version: l.dist.Version, Libs: l.dist.Libs,
		Settings: l.settings, Nodes: l.nodes, Started: time.Now().UTC()}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(l.dir, stateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(l.dir, stateFile))
}

// ErrNotRunning is returned by AttachLocal when no detached cluster is
// recorded in the folder.
var ErrNotRunning = errors.New("no local cluster running")

// AttachLocal finds the detached cluster that `chaos cluster up` started in
// dir. Closing it stops its brokers.
func AttachLocal(dir string) (*Local, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNotRunning, dir)
	}
	if err != nil {
		return nil, err
	}
	var st localState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, stateFile), err)
	}
	l := &Local{
		cfg:       LocalConfig{Nodes: len(st.Nodes), Dir: dir, Detached: true, ReadyTimeout: 120 * time.Second, HeapMB: 1024},
		dist:      Dist{Libs: st.Libs, Version: st.Version, Source: "state.json"},
		clusterID: st.ClusterID,
		dir:       dir,
		settings:  st.Settings,
		nodes:     st.Nodes,
	}
	if l.java, err = JavaCommand(); err != nil {
		return nil, err
	}
	if l.adm, err = NewAdmin(l.Bootstrap(), nil); err != nil {
		return nil, err
	}
	return l, nil
}
