// Package netfault gives a process its own network path to every broker,
// which the harness can cut, reset, delay or throttle without privileges.
//
// A path is a set of TCP proxies of Shopify's Toxiproxy, run as a library
// inside the harness's own process: one proxy per broker, listening on a
// loopback port the harness chose and forwarding to a broker listener
// reserved for that path. The local cluster advertises that listener at
// the proxy's port, so a client given the path's bootstrap follows the
// brokers' metadata back into its own proxies and never reaches a broker
// any other way (docs/network.md). A fault is a set of Toxiproxy toxics on
// every proxy of the path, in both directions; healing removes them.
//
// The proxies live and die with the process that started them: nothing
// outlives a harness that is killed, and nothing needs cleaning up before
// the next run.
package netfault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// The faults a path can carry.
const (
	// Disconnect is a blackhole: connections stay open and nothing passes
	// either way (Toxiproxy's timeout toxic, timeout 0). Each side learns
	// only from its own timeouts. When it heals, the proxy closes the
	// connections it held, since bytes were dropped from their streams;
	// the clients connect again.
	Disconnect = "disconnect"
	// Reset closes every connection at once with a TCP reset, and every
	// new one as soon as it carries a byte, until healed (Toxiproxy's
	// reset_peer toxic, timeout 0).
	Reset = "reset"
	// Latency delays every chunk of data by Delay ± Jitter, each way
	// (Toxiproxy's latency toxic): a round trip grows by twice Delay.
	Latency = "latency"
	// Bandwidth limits each direction of each connection to Rate bytes a
	// second (Toxiproxy's bandwidth toxic, in KB/s).
	Bandwidth = "bandwidth"
)

// Fault is what a path is made to do.
type Fault struct {
	Kind   string
	Delay  time.Duration // Latency: added each way
	Jitter time.Duration // Latency: ± around Delay
	Rate   int64         // Bandwidth: bytes a second, each direction
}

// Check reports what is wrong with a fault.
func (f Fault) Check() error {
	switch f.Kind {
	case Disconnect, Reset:
	case Latency:
		if f.Delay <= 0 || f.Jitter < 0 || f.Jitter > f.Delay {
			return fmt.Errorf("latency: delay %v, jitter %v: expected delay > 0 and 0 <= jitter <= delay", f.Delay, f.Jitter)
		}
	case Bandwidth:
		if f.Rate < 1024 {
			return fmt.Errorf("bandwidth: rate %d B/s: expected at least 1024 (Toxiproxy counts in KB/s)", f.Rate)
		}
	default:
		return fmt.Errorf("fault %q: expected %s, %s, %s or %s", f.Kind, Disconnect, Reset, Latency, Bandwidth)
	}
	return nil
}

// toxics are the fault's toxics, one per direction, as Toxiproxy's JSON.
func (f Fault) toxics() []string {
	var typ, attrs string
	switch f.Kind {
	case Disconnect:
		typ, attrs = "timeout", `{"timeout":0}`
	case Reset:
		typ, attrs = "reset_peer", `{"timeout":0}`
	case Latency:
		typ, attrs = "latency", fmt.Sprintf(`{"latency":%d,"jitter":%d}`, f.Delay.Milliseconds(), f.Jitter.Milliseconds())
	case Bandwidth:
		typ, attrs = "bandwidth", fmt.Sprintf(`{"rate":%d}`, max(f.Rate/1024, 1))
	}
	var out []string
	for _, dir := range []string{"upstream", "downstream"} {
		out = append(out, fmt.Sprintf(`{"name":"chaos_%s","type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, dir, typ, dir, attrs))
	}
	return out
}

// Route is one proxy of a path: where it listens, where it forwards.
type Route struct {
	Listen   string // host:port on loopback
	Upstream string // the broker listener reserved for the path
}

// Set holds the paths of one cluster.
type Set struct {
	server *toxiproxy.ApiServer

	mu     sync.Mutex
	paths  map[string]*Path
	closed bool
}

// NewSet returns an empty set. Its proxies serve no HTTP API: the harness
// drives them by calls.
func NewSet() *Set {
	return &Set{
		server: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop()),
		paths:  map[string]*Path{},
	}
}

// Path is one process's path to the brokers.
type Path struct {
	name    string
	proxies []*toxiproxy.Proxy

	mu    sync.Mutex
	fault *Fault
}

// Add starts the proxies of a new path.
func (s *Set) Add(name string, routes []Route) (*Path, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("netfault: the set is closed")
	}
	if _, ok := s.paths[name]; ok {
		return nil, fmt.Errorf("netfault: path %s exists", name)
	}
	p := &Path{name: name}
	for i, r := range routes {
		px := toxiproxy.NewProxy(s.server, fmt.Sprintf("%s-%d", name, i), r.Listen, r.Upstream)
		if err := px.Start(); err != nil {
			p.stop()
			return nil, fmt.Errorf("netfault: path %s: listen on %s: %w", name, r.Listen, err)
		}
		p.proxies = append(p.proxies, px)
	}
	s.paths[name] = p
	return p, nil
}

// Path returns the path of that name.
func (s *Set) Path(name string) (*Path, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.paths[name]
	return p, ok
}

// Names returns the paths' names.
func (s *Set) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.paths {
		out = append(out, n)
	}
	return out
}

// Close stops every proxy and closes every connection through them.
func (s *Set) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, p := range s.paths {
		p.stop()
	}
	s.paths = map[string]*Path{}
}

func (p *Path) stop() {
	for _, px := range p.proxies {
		px.Stop()
	}
}

// Name is the path's name (the process it serves).
func (p *Path) Name() string { return p.name }

// Listen returns the addresses the path's proxies listen on, in broker
// order.
func (p *Path) Listen() []string {
	out := make([]string, len(p.proxies))
	for i, px := range p.proxies {
		out[i] = px.Listen
	}
	return out
}

// Bootstrap returns the path's bootstrap.servers.
func (p *Path) Bootstrap() string { return strings.Join(p.Listen(), ",") }

// Apply puts a fault on every proxy of the path. A path carries one fault
// at a time: a second one is refused until Heal.
func (p *Path) Apply(f Fault) error {
	if err := f.Check(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fault != nil {
		return fmt.Errorf("path %s already carries a %s", p.name, p.fault.Kind)
	}
	for _, px := range p.proxies {
		for _, t := range f.toxics() {
			if _, err := px.Toxics.AddToxicJson(strings.NewReader(t)); err != nil {
				p.heal()
				return fmt.Errorf("path %s: %s: %w", p.name, f.Kind, err)
			}
		}
	}
	p.fault = &f
	return nil
}

// Heal removes the path's fault, if any.
func (p *Path) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.heal()
	p.fault = nil
}

func (p *Path) heal() {
	for _, px := range p.proxies {
		px.Toxics.ResetToxics(context.Background())
	}
}

// Fault returns the path's current fault, if any.
func (p *Path) Fault() (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fault == nil {
		return Fault{}, false
	}
	return *p.fault, true
}

// Faultable is what a fault can be put on: a path, or a group of paths
// faulted as one.
type Faultable interface {
	Name() string
	Apply(Fault) error
	Heal()
}

// Group is several paths faulted as one: a broker's links to and from
// every other broker. Its paths may belong to other groups too (the link
// between two brokers is in both brokers' groups); a path carries one
// fault at a time, so two groups that share a path cannot be faulted at
// once.
type Group struct {
	name  string
	paths []*Path

	mu      sync.Mutex
	applied []*Path // the paths this group's fault is on
}

// NewGroup returns a group of paths.
func NewGroup(name string, paths ...*Path) *Group {
	return &Group{name: name, paths: paths}
}

// Name is the group's name (what it cuts off).
func (g *Group) Name() string { return g.name }

// Paths returns the group's paths.
func (g *Group) Paths() []*Path { return append([]*Path(nil), g.paths...) }

// Apply puts a fault on every path of the group, or on none: when one
// path refuses it (it carries another fault), the paths already given
// it are healed.
func (g *Group) Apply(f Fault) error {
	if err := f.Check(); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.applied) > 0 {
		return fmt.Errorf("%s already carries a fault", g.name)
	}
	for _, p := range g.paths {
		if err := p.Apply(f); err != nil {
			for _, q := range g.applied {
				q.Heal()
			}
			g.applied = nil
			return fmt.Errorf("%s: %w", g.name, err)
		}
		g.applied = append(g.applied, p)
	}
	return nil
}

// Heal removes the group's fault from every path it put it on.
func (g *Group) Heal() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range g.applied {
		p.Heal()
	}
	g.applied = nil
}

// Upstreams returns the addresses the path's proxies forward to, in
// broker order.
func (p *Path) Upstreams() []string {
	out := make([]string, len(p.proxies))
	for i, px := range p.proxies {
		out[i] = px.Upstream
	}
	return out
}
