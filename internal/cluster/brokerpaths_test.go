package cluster

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
)

// props parses the lines key=value of a server.properties.
func props(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

// endpoints parses a listeners value: name -> port.
func endpoints(t *testing.T, v string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, e := range strings.Split(v, ",") {
		name, addr, ok := strings.Cut(e, "://")
		if !ok {
			t.Fatalf("listener %q", e)
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		out[name], _ = strconv.Atoi(port)
	}
	return out
}

// With broker paths, every address a node reaches another node at (the
// peer's advertised inter-broker listener under the node's own
// inter.broker.listener.name, its controller.quorum.voters) is the
// proxy of the link between the two, and that proxy forwards to the
// peer's listener of that name; a node reaches itself directly. So the
// cut of a node is the faults of its links, and nothing else.
func TestBrokerPathsRouteNodeTrafficThroughLinks(t *testing.T) {
	l := &Local{cfg: LocalConfig{Nodes: 3, BrokerPaths: true, NetPaths: []string{"m1"}}}
	if err := checkBrokerPaths(l.cfg); err != nil {
		t.Fatal(err)
	}
	l.dir = t.TempDir()
	if err := l.layOutNodes(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := l.startLinks(); err != nil {
		t.Fatal(err)
	}
	defer l.links.Close()
	// proxy port -> (link name, upstream port)
	type hop struct {
		link     string
		upstream int
	}
	proxies := map[int]hop{}
	for _, name := range l.links.Names() {
		p, _ := l.links.Path(name)
		for i, addr := range p.Listen() {
			_, port, _ := net.SplitHostPort(addr)
			pp, _ := strconv.Atoi(port)
			up := p.Upstreams()[i]
			_, uport, _ := net.SplitHostPort(up)
			u, _ := strconv.Atoi(uport)
			proxies[pp] = hop{name, u}
		}
	}
	if len(proxies) != 12 {
		t.Fatalf("%d link proxies, expected 12 (two for each of the 6 ordered pairs of 3 nodes)", len(proxies))
	}
	cfgs := map[int]map[string]string{}
	for _, n := range l.nodes {
		var b strings.Builder
		b.WriteString(l.listenerConfig(n))
		fmt.Fprintf(&b, "controller.quorum.voters=%s\n", l.voters(n))
		cfgs[n.ID] = props(b.String())
	}
	for _, x := range l.nodes {
		cx := cfgs[x.ID]
		inter := cx["inter.broker.listener.name"]
		if inter != interListener(x.ID) {
			t.Fatalf("node %d: inter.broker.listener.name %s", x.ID, inter)
		}
		ctrl, _, _ := strings.Cut(cx["controller.listener.names"], ",")
		if ctrl != controllerListener(x.ID) {
			t.Fatalf("node %d: first controller listener %s", x.ID, ctrl)
		}
		voters := map[int]int{}
		for _, v := range strings.Split(cx["controller.quorum.voters"], ",") {
			id, addr, _ := strings.Cut(v, "@")
			_, port, _ := net.SplitHostPort(addr)
			i, _ := strconv.Atoi(id)
			voters[i], _ = strconv.Atoi(port)
		}
		for _, y := range l.nodes {
			cy := cfgs[y.ID]
			adv := endpoints(t, cy["advertised.listeners"])
			lis := endpoints(t, cy["listeners"])
			for _, want := range []struct {
				what, name string
				port       int
			}{
				{"advertised " + inter, inter, adv[inter]},
				{"voter", ctrl, voters[y.ID]},
				{"advertised " + ctrl, ctrl, adv[ctrl]},
			} {
				if want.port == 0 {
					t.Fatalf("node %d has no %s for node %d", y.ID, want.what, x.ID)
				}
				h, proxied := proxies[want.port]
				switch {
				case x == y && proxied:
					t.Errorf("node %d reaches itself through %s (%s)", x.ID, h.link, want.what)
				case x == y && want.port != lis[want.name]:
					t.Errorf("node %d: its own %s is port %d, its listener %s is at %d", x.ID, want.what, want.port, want.name, lis[want.name])
				case x != y && !proxied:
					t.Errorf("node %d reaches node %d's %s at %d, not through a link", x.ID, y.ID, want.what, want.port)
				case x != y && h.link != linkName(x.ID, y.ID):
					t.Errorf("node %d reaches node %d's %s through %s", x.ID, y.ID, want.what, h.link)
				case x != y && h.upstream != lis[want.name]:
					t.Errorf("link %s forwards %s to %d, node %d listens for %s at %d", h.link, want.what, h.upstream, y.ID, want.name, lis[want.name])
				}
			}
			// The clients' listeners are not proxied by a link.
			for _, name := range []string{"PLAINTEXT", pathListener(0)} {
				if h, ok := proxies[adv[name]]; ok {
					t.Errorf("node %d advertises %s through link %s", y.ID, name, h.link)
				}
			}
		}
	}
	// A node's cut is its links to and from both others.
	g, ok := l.BrokerCut(2)
	if !ok {
		t.Fatal("no cut of node 2")
	}
	var names []string
	for _, p := range g.Paths() {
		names = append(names, p.Name())
	}
	if got := strings.Join(names, " "); got != "link-2-1 link-1-2 link-2-3 link-3-2" {
		t.Errorf("node 2's cut: %s", got)
	}
	if _, ok := l.BrokerCut(4); ok {
		t.Error("a cut of node 4 of 3")
	}
	for _, bad := range []LocalConfig{{Nodes: 1, BrokerPaths: true}, {Nodes: 3, BrokerPaths: true, Detached: true}} {
		if err := checkBrokerPaths(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := checkListeners([]Listener{{Name: "INTER_1", Protocol: "SSL"}}); err == nil {
		t.Error("a listener INTER_1 accepted")
	}
}
