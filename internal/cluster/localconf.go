package cluster

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/workloads"
)

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

// checkReservedSettings refuses the properties the provider must own
// (workloads.ReservedBrokerSettings: where a node listens and keeps its
// data), which a workload's validation refuses too.
func checkReservedSettings(s Settings) error {
	for k := range s {
		if slices.Contains(workloads.ReservedBrokerSettings, k) {
			return fmt.Errorf("broker setting %s: set by the local provider (listeners and storage), not settable", k)
		}
	}
	return nil
}

// voters is node n's controller.quorum.voters: every node's controller
// listener, or with BrokerPaths the proxy of n's link to it
// (voterPort).
func (l *Local) voters(n *localNode) string {
	var vs []string
	for _, v := range l.nodes {
		vs = append(vs, fmt.Sprintf("%d@127.0.0.1:%d", v.ID, l.voterPort(n, v)))
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
	fmt.Fprintf(&b, "controller.quorum.voters=%s\n", l.voters(n))
	b.WriteString(l.listenerConfig(n))
	fmt.Fprintf(&b, "log.dirs=%s\n", filepath.Join(n.Dir, "data"))
	for _, k := range l.settings.Keys() {
		fmt.Fprintf(&b, "%s=%s\n", k, l.settings[k])
	}
	// Readable by this user alone: a listener's settings may hold
	// passwords (a key store's, a JAAS configuration's).
	if err := os.WriteFile(filepath.Join(n.Dir, "server.properties"), []byte(b.String()), 0o600); err != nil {
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
	ports, _, err := pickPortsExtra(base, n, 0)
	return ports, err
}

// pickPortsExtra is pickPorts, and n*extra more free ports (the extra
// listeners' ports), all held open until every one is chosen so that no
// two are the same.
func pickPortsExtra(base, n, extra int) ([]int, []int, error) {
	ports := make([]int, 2*n)
	more := make([]int, n*extra)
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
				return nil, nil, fmt.Errorf("port %d for node %d: %w", p, i+1, err)
			}
			hold = append(hold, ln)
			ports[2*i] = p
		} else {
			p, err := free()
			if err != nil {
				return nil, nil, err
			}
			ports[2*i] = p
		}
		p, err := free()
		if err != nil {
			return nil, nil, err
		}
		ports[2*i+1] = p
	}
	for i := range more {
		p, err := free()
		if err != nil {
			return nil, nil, err
		}
		more[i] = p
	}
	return ports, more, nil
}
