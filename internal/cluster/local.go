package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/netfault"
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
	// Listeners are client listeners besides PLAINTEXT (TLS, SASL), each
	// on a port of its own (ListenerBootstrap).
	Listeners []Listener
	// NetPaths names the processes that get a network path of their own
	// to every broker, which network chaos steps can cut, reset, delay or
	// throttle (netpaths.go, docs/network.md). Not with Detached: the
	// proxies live in the process that starts the cluster.
	NetPaths []string
	// BrokerPaths gives the nodes' traffic to each other (replication,
	// the controller quorum, a broker's heartbeats) a path of its own per
	// pair of nodes, so that network chaos can cut one broker off from
	// the others while clients still reach it (brokerpaths.go,
	// BrokerCut). Three nodes; not with Detached.
	BrokerPaths bool
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
	paths *netfault.Set // nil without NetPaths
	links *netfault.Set // nil without BrokerPaths
	cuts  map[int]*netfault.Group
}

type localNode struct {
	ID             int    `json:"id"`
	Port           int    `json:"port"`
	ControllerPort int    `json:"controller_port"`
	Dir            string `json:"dir"`
	Log            string `json:"log"`
	PID            int    `json:"pid"`
	// ListenerPorts are the ports of LocalConfig.Listeners, in order.
	ListenerPorts []int `json:"listener_ports,omitempty"`
	// PathPorts are the node's listeners of LocalConfig.NetPaths, in
	// order, and ProxyPorts the ports each is advertised at: its path's
	// proxy to this node.
	PathPorts  []int `json:"path_ports,omitempty"`
	ProxyPorts []int `json:"proxy_ports,omitempty"`
	// Links are, with BrokerPaths, the node's listeners for the traffic
	// of each node (by node index, its own included) and the ports of
	// the proxies they are advertised at.
	Links []linkPorts `json:"links,omitempty"`

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
	if cfg, err = cfg.withDefaults(); err != nil {
		return nil, err
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
	if l.dir, l.tempDir, err = makeClusterDir(cfg.Dir); err != nil {
		return nil, err
	}
	// From here on a failed start stops what it started and removes a
	// temporary folder.
	defer func() {
		if err != nil {
			_ = l.Close(context.Background())
		}
	}()
	logDir, err := makeLogDir(cfg.LogDir, l.dir)
	if err != nil {
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
	if err := checkListeners(cfg.Listeners); err != nil {
		return nil, err
	}
	if err := checkNetPaths(cfg); err != nil {
		return nil, err
	}
	if err := checkBrokerPaths(cfg); err != nil {
		return nil, err
	}
	if err := l.layOutNodes(logDir); err != nil {
		return nil, err
	}
	if err := l.startPaths(); err != nil {
		return nil, err
	}
	if err := l.startLinks(); err != nil {
		return nil, err
	}
	for _, n := range l.nodes {
		if err := l.writeNodeConfig(n); err != nil {
			return nil, err
		}
	}
	if err := l.formatNodes(ctx); err != nil {
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
	if err := l.waitReady(ctx); err != nil {
		return nil, err
	}
	if cfg.Detached {
		if err := l.saveState(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// withDefaults returns the configuration with its defaults filled in, or
// an error for a cluster size the provider does not start.
func (cfg LocalConfig) withDefaults() (LocalConfig, error) {
	if cfg.Nodes == 0 {
		cfg.Nodes = 1
	}
	if cfg.Nodes != 1 && cfg.Nodes != 3 {
		return cfg, fmt.Errorf("local cluster: %d nodes: expected 1 or 3", cfg.Nodes)
	}
	if cfg.HeapMB == 0 {
		cfg.HeapMB = 1024
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 120 * time.Second
	}
	return cfg, nil
}

// makeClusterDir creates the folder of the nodes' configuration and data:
// dir, or a temporary folder (temp) when dir is empty.
func makeClusterDir(dir string) (abs string, temp bool, err error) {
	if dir == "" {
		abs, err = os.MkdirTemp("", "chaosbench-kafka-")
		return abs, err == nil, err
	}
	if abs, err = filepath.Abs(dir); err != nil {
		return "", false, err
	}
	return abs, false, os.MkdirAll(abs, 0o755)
}

// makeLogDir creates the folder of the nodes' log files: logDir, or
// clusterDir/logs when logDir is empty.
func makeLogDir(logDir, clusterDir string) (string, error) {
	if logDir == "" {
		logDir = filepath.Join(clusterDir, "logs")
	}
	logDir, err := filepath.Abs(logDir)
	if err != nil {
		return "", err
	}
	return logDir, os.MkdirAll(logDir, 0o755)
}

// layOutNodes gives every node its id, client and controller ports, data
// folder and log file.
func (l *Local) layOutNodes(logDir string) error {
	nl, np := len(l.cfg.Listeners), len(l.cfg.NetPaths)
	per := nl + 2*np
	if l.cfg.BrokerPaths {
		per += linkPortsPerNode * l.cfg.Nodes
	}
	ports, extra, err := pickPortsExtra(l.cfg.Port, l.cfg.Nodes, per)
	if err != nil {
		return err
	}
	for i := 0; i < l.cfg.Nodes; i++ {
		id := i + 1
		mine := extra[i*per : (i+1)*per]
		n := &localNode{
			ID:             id,
			Port:           ports[2*i],
			ControllerPort: ports[2*i+1],
			Dir:            filepath.Join(l.dir, fmt.Sprintf("node-%d", id)),
			Log:            filepath.Join(logDir, fmt.Sprintf("node-%d.log", id)),
			ListenerPorts:  mine[:nl],
			PathPorts:      mine[nl : nl+np],
			ProxyPorts:     mine[nl+np : nl+2*np],
		}
		if l.cfg.BrokerPaths {
			n.Links = layOutLinks(i, n.ControllerPort, mine[nl+2*np:])
		}
		l.nodes = append(l.nodes, n)
	}
	return nil
}

// formatNodes formats every node's storage, in parallel: each is a JVM
// start.
func (l *Local) formatNodes(ctx context.Context) error {
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
	return errors.Join(errs...)
}

// waitReady waits, at most the ready timeout, until every node is
// registered and the group coordinator answers; a node that exits ends
// the wait.
func (l *Local) waitReady(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, l.cfg.ReadyTimeout)
	defer cancel()
	return WaitReady(rctx, l.adm, l.NodeIDs(), l.allAlive)
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
	if l.paths != nil {
		info.NetPaths = map[string]string{}
		for _, name := range l.paths.Names() {
			if p, ok := l.paths.Path(name); ok {
				info.NetPaths[name] = p.Bootstrap()
			}
		}
	}
	if l.links != nil {
		info.BrokerLinks = map[string]string{}
		for _, name := range l.links.Names() {
			if p, ok := l.links.Path(name); ok {
				info.BrokerLinks[name] = p.Bootstrap()
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := describe(ctx, l.adm, &info); err != nil {
		return info, err
	}
	return info, nil
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
	if l.paths != nil {
		l.paths.Close()
	}
	if l.links != nil {
		l.links.Close()
	}
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
