package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/netfault"
)

// Network paths. A process that network chaos can reach is given a path
// of its own to every broker (LocalConfig.NetPaths): each node opens a
// PLAINTEXT listener for the path, on a port of its own, and advertises
// it at the port of the path's proxy to that node. The proxies run in
// this process (package netfault). A client bootstrapped at its path's
// proxies asks for metadata on the path's listener, so every broker
// address it is told is a proxy of its own path: all its traffic goes
// through them and nothing else's does. Brokers talk to each other and
// to the controller directly, unless they are given links of their own
// (LocalConfig.BrokerPaths, brokerpaths.go).

// MaxNetPaths bounds LocalConfig.NetPaths: each path is a listener, with
// its network threads, on every node.
const MaxNetPaths = 64

// pathListenerPrefix names the listeners of network paths.
const pathListenerPrefix = "NETPATH_"

func pathListener(i int) string { return pathListenerPrefix + strconv.Itoa(i+1) }

// NetPaths is a cluster whose clients can be given paths of their own.
type NetPaths interface {
	// NetPath returns the path of a process, by the name it was given in
	// LocalConfig.NetPaths.
	NetPath(name string) (*netfault.Path, bool)
}

// checkNetPaths refuses paths the provider cannot give.
func checkNetPaths(cfg LocalConfig) error {
	if len(cfg.NetPaths) == 0 {
		return nil
	}
	if cfg.Detached {
		return fmt.Errorf("local cluster: network paths need the harness that started the cluster (their proxies live in it): not with a detached cluster")
	}
	if len(cfg.NetPaths) > MaxNetPaths {
		return fmt.Errorf("local cluster: %d network paths, expected at most %d", len(cfg.NetPaths), MaxNetPaths)
	}
	seen := map[string]bool{}
	for _, n := range cfg.NetPaths {
		if n == "" || seen[n] {
			return fmt.Errorf("local cluster: network path %q: expected distinct, non-empty names", n)
		}
		seen[n] = true
	}
	for _, l := range cfg.Listeners {
		if strings.HasPrefix(l.Name, pathListenerPrefix) {
			return fmt.Errorf("listener %s: names starting %s are the network paths'", l.Name, pathListenerPrefix)
		}
	}
	return nil
}

// startPaths starts the proxies of every path, before the brokers: a
// path's proxy to node i listens on the node's ProxyPorts and forwards to
// its PathPorts.
func (l *Local) startPaths() error {
	if len(l.cfg.NetPaths) == 0 {
		return nil
	}
	l.paths = netfault.NewSet()
	for i, name := range l.cfg.NetPaths {
		var routes []netfault.Route
		for _, n := range l.nodes {
			routes = append(routes, netfault.Route{
				Listen:   fmt.Sprintf("127.0.0.1:%d", n.ProxyPorts[i]),
				Upstream: fmt.Sprintf("127.0.0.1:%d", n.PathPorts[i]),
			})
		}
		if _, err := l.paths.Add(name, routes); err != nil {
			return err
		}
	}
	return nil
}

// NetPath implements NetPaths.
func (l *Local) NetPath(name string) (*netfault.Path, bool) {
	if l.paths == nil {
		return nil, false
	}
	return l.paths.Path(name)
}
