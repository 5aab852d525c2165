package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/netfault"
)

// Broker paths (LocalConfig.BrokerPaths): the nodes' traffic to each
// other goes through proxies of this process, one link per ordered pair
// of nodes, so that a broker can be cut off from the others while
// clients still reach it (docs/network.md).
//
// Kafka finds a peer at the address the peer advertises for a listener
// name of its own choosing, and the name is per node:
//   - replication and the transaction markers: a broker connects to the
//     others' listener named by its inter.broker.listener.name. Node x
//     names INTER_x; every node y opens a listener INTER_x and
//     advertises it at the proxy of the link x→y (node x's own INTER_x
//     at its real port).
//   - the controller quorum and a broker's requests to the controller
//     (heartbeats, AlterPartition): node x reaches the voters at the
//     addresses of its controller.quorum.voters, under the first name of
//     its controller.listener.names. Node x names CONTROLLER_x first;
//     its voters are the proxies of its links x→y. Every node y opens
//     CONTROLLER_x and advertises it at the proxy of x→y, since a raft
//     leader tells followers its endpoint for the listener their request
//     came in on (KIP-853), which is then the follower's own link.
// The clients' PLAINTEXT listener and the network paths (netpaths.go)
// are untouched: cutting node k faults the links k→y and y→k for every
// other y, and nothing else.

const (
	interListenerPrefix      = "INTER_"
	controllerListenerPrefix = "CONTROLLER_"
	// linkPortsPerNode: a node's ports for each node's links (its
	// listeners INTER_x and CONTROLLER_x, the proxies of x→it).
	linkPortsPerNode = 4
)

// linkPorts are a node's listeners for the traffic of one node x, and
// the ports of the proxies of the link x→node they are advertised at.
// For the node itself the proxies are 0 (it reaches itself directly)
// and its CONTROLLER listener is its ControllerPort.
type linkPorts struct {
	Inter           int `json:"inter"`
	InterProxy      int `json:"inter_proxy,omitempty"`
	Controller      int `json:"controller"`
	ControllerProxy int `json:"controller_proxy,omitempty"`
}

// layOutLinks gives node i its link ports, from ports (linkPortsPerNode
// per node).
func layOutLinks(i, controllerPort int, ports []int) []linkPorts {
	n := len(ports) / linkPortsPerNode
	out := make([]linkPorts, n)
	for x := range out {
		p := ports[x*linkPortsPerNode:]
		out[x] = linkPorts{Inter: p[0], InterProxy: p[1], Controller: p[2], ControllerProxy: p[3]}
		if x == i {
			out[x].InterProxy, out[x].ControllerProxy = 0, 0
			out[x].Controller = controllerPort
		}
	}
	return out
}

func interListener(id int) string      { return interListenerPrefix + strconv.Itoa(id) }
func controllerListener(id int) string { return controllerListenerPrefix + strconv.Itoa(id) }

// checkBrokerPaths refuses broker paths the provider cannot give.
func checkBrokerPaths(cfg LocalConfig) error {
	if !cfg.BrokerPaths {
		return nil
	}
	if cfg.Nodes < 3 {
		return fmt.Errorf("local cluster: broker paths need 3 nodes (a broker cut off from the others), got %d", cfg.Nodes)
	}
	if cfg.Detached {
		return errors.New("local cluster: broker paths need the harness that started the cluster (their proxies live in it): not with a detached cluster")
	}
	return nil
}

// linkName names the link from node x to node y (by id).
func linkName(x, y int) string { return fmt.Sprintf("link-%d-%d", x, y) }

// startLinks starts the proxy pairs of every link, before the brokers:
// the link x→y forwards node y's ports for x's traffic.
func (l *Local) startLinks() error {
	if !l.cfg.BrokerPaths {
		return nil
	}
	l.links = netfault.NewSet()
	for xi, x := range l.nodes {
		for _, y := range l.nodes {
			if x == y {
				continue
			}
			lp := y.Links[xi]
			routes := []netfault.Route{
				{Listen: fmt.Sprintf("127.0.0.1:%d", lp.InterProxy), Upstream: fmt.Sprintf("127.0.0.1:%d", lp.Inter)},
				{Listen: fmt.Sprintf("127.0.0.1:%d", lp.ControllerProxy), Upstream: fmt.Sprintf("127.0.0.1:%d", lp.Controller)},
			}
			if _, err := l.links.Add(linkName(x.ID, y.ID), routes); err != nil {
				return err
			}
		}
	}
	// Node k's cut: its links to and from every other node.
	l.cuts = map[int]*netfault.Group{}
	for _, k := range l.nodes {
		var paths []*netfault.Path
		for _, y := range l.nodes {
			if y == k {
				continue
			}
			for _, name := range []string{linkName(k.ID, y.ID), linkName(y.ID, k.ID)} {
				p, _ := l.links.Path(name)
				paths = append(paths, p)
			}
		}
		l.cuts[k.ID] = netfault.NewGroup("broker-"+strconv.Itoa(k.ID), paths...)
	}
	return nil
}

// voterPort is the port node n reaches voter v at: v's controller
// listener, or with broker paths (v another node) the proxy of n→v.
func (l *Local) voterPort(n, v *localNode) int {
	if !l.cfg.BrokerPaths || n == v {
		return v.ControllerPort
	}
	return v.Links[l.index(n)].ControllerProxy
}

func (l *Local) index(n *localNode) int { return slices.Index(l.nodes, n) }

// linkListenerConfig is node n's listener configuration with broker
// paths: its listeners, advertised listeners and protocol map entries
// for every node's links, and the names it uses itself.
func (l *Local) linkListenerConfig(n *localNode) (listeners, advertised, protocols []string, controllerNames, interName string) {
	names := []string{controllerListener(n.ID)}
	for xi, x := range l.nodes {
		lp := n.Links[xi]
		in, cn := interListener(x.ID), controllerListener(x.ID)
		listeners = append(listeners,
			fmt.Sprintf("%s://127.0.0.1:%d", in, lp.Inter),
			fmt.Sprintf("%s://127.0.0.1:%d", cn, lp.Controller))
		if x == n {
			advertised = append(advertised,
				fmt.Sprintf("%s://127.0.0.1:%d", in, lp.Inter),
				fmt.Sprintf("%s://127.0.0.1:%d", cn, lp.Controller))
		} else {
			advertised = append(advertised,
				fmt.Sprintf("%s://127.0.0.1:%d", in, lp.InterProxy),
				fmt.Sprintf("%s://127.0.0.1:%d", cn, lp.ControllerProxy))
			names = append(names, cn)
		}
		protocols = append(protocols, in+":PLAINTEXT", cn+":PLAINTEXT")
	}
	return listeners, advertised, protocols, strings.Join(names, ","), interListener(n.ID)
}

// BrokerCuts is a cluster whose brokers can be cut off from each other.
type BrokerCuts interface {
	// BrokerCut returns the links to and from a broker (by node id), to
	// be faulted as one.
	BrokerCut(id int) (*netfault.Group, bool)
}

// BrokerCut implements BrokerCuts: the links of node id to and from
// every other node.
func (l *Local) BrokerCut(id int) (*netfault.Group, bool) {
	g, ok := l.cuts[id]
	return g, ok
}
