package cluster

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Listener is a client listener a local cluster opens besides its
// PLAINTEXT one: how a test (or a user of `chaos cluster up` one day)
// gets a broker that speaks TLS or SASL, so that the clients' security
// settings are tried against a real broker. Brokers still talk to each
// other and to the controller over PLAINTEXT on loopback.
type Listener struct {
	// Name is the listener's name in the broker's configuration, upper
	// case (SSL, SASL_SSL, SCRAM, ...); ListenerBootstrap finds it by it.
	Name string
	// Protocol is its security protocol: SSL, SASL_PLAINTEXT or SASL_SSL.
	Protocol string
	// Settings are its broker properties, written under the
	// listener.name.<name>. prefix: ssl.keystore.location,
	// ssl.client.auth, sasl.enabled.mechanisms,
	// scram-sha-512.sasl.jaas.config, ...
	Settings Settings
}

var listenerNameRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// checkListeners refuses listeners the provider cannot open.
func checkListeners(ls []Listener) error {
	seen := map[string]bool{"PLAINTEXT": true, "CONTROLLER": true}
	for _, l := range ls {
		if !listenerNameRE.MatchString(l.Name) {
			return fmt.Errorf("listener %q: expected an upper-case name (letters, digits, _)", l.Name)
		}
		for _, p := range []string{interListenerPrefix, controllerListenerPrefix} {
			if strings.HasPrefix(l.Name, p) {
				return fmt.Errorf("listener %s: names starting %s are the broker paths'", l.Name, p)
			}
		}
		if seen[l.Name] {
			return fmt.Errorf("listener %s: the name is taken", l.Name)
		}
		seen[l.Name] = true
		if !slices.Contains([]string{"SSL", "SASL_PLAINTEXT", "SASL_SSL"}, l.Protocol) {
			return fmt.Errorf("listener %s: protocol %q: expected SSL, SASL_PLAINTEXT or SASL_SSL", l.Name, l.Protocol)
		}
	}
	return nil
}

// listenerConfig is the part of a node's server.properties that declares
// its listeners: PLAINTEXT for clients and brokers, CONTROLLER, and the
// extra ones with their settings.
func (l *Local) listenerConfig(n *localNode) string {
	listeners := []string{fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", n.Port), fmt.Sprintf("CONTROLLER://127.0.0.1:%d", n.ControllerPort)}
	advertised := []string{fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", n.Port)}
	protocols := []string{"PLAINTEXT:PLAINTEXT", "CONTROLLER:PLAINTEXT"}
	controllerNames, interName := "CONTROLLER", "PLAINTEXT"
	if l.cfg.BrokerPaths {
		// The nodes reach each other through their links' listeners
		// (brokerpaths.go); the controller listener is CONTROLLER_<id>.
		var ll, la, lp []string
		ll, la, lp, controllerNames, interName = l.linkListenerConfig(n)
		listeners = append(listeners[:1], ll...)
		advertised = append(advertised, la...)
		protocols = append(protocols[:1], lp...)
	}
	for i, x := range l.cfg.Listeners {
		addr := fmt.Sprintf("%s://127.0.0.1:%d", x.Name, n.ListenerPorts[i])
		listeners = append(listeners, addr)
		advertised = append(advertised, addr)
		protocols = append(protocols, x.Name+":"+x.Protocol)
	}
	for i := range l.cfg.NetPaths {
		name := pathListener(i)
		listeners = append(listeners, fmt.Sprintf("%s://127.0.0.1:%d", name, n.PathPorts[i]))
		advertised = append(advertised, fmt.Sprintf("%s://127.0.0.1:%d", name, n.ProxyPorts[i]))
		protocols = append(protocols, name+":PLAINTEXT")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "listeners=%s\n", strings.Join(listeners, ","))
	fmt.Fprintf(&b, "advertised.listeners=%s\n", strings.Join(advertised, ","))
	fmt.Fprintf(&b, "controller.listener.names=%s\ninter.broker.listener.name=%s\n", controllerNames, interName)
	fmt.Fprintf(&b, "listener.security.protocol.map=%s\n", strings.Join(protocols, ","))
	for _, x := range l.cfg.Listeners {
		prefix := "listener.name." + strings.ToLower(x.Name) + "."
		for _, k := range x.Settings.Keys() {
			fmt.Fprintf(&b, "%s%s=%s\n", prefix, k, x.Settings[k])
		}
	}
	return b.String()
}

// ListenerBootstrap returns the bootstrap.servers of an extra listener.
func (l *Local) ListenerBootstrap(name string) (string, error) {
	i := slices.IndexFunc(l.cfg.Listeners, func(x Listener) bool { return x.Name == name })
	if i < 0 {
		return "", fmt.Errorf("local cluster: no listener %s", name)
	}
	var addrs []string
	for _, n := range l.nodes {
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", n.ListenerPorts[i]))
	}
	return strings.Join(addrs, ","), nil
}
