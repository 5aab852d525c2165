// Package cluster gives chaosbench a Kafka cluster to run against: an
// existing one (external), real Apache Kafka processes started on loopback
// (local), or testcontainers-go's Kafka module (docker).
//
// Every provider returns the same thing: a bootstrap address, the client
// properties needed to reach it, and a description of the cluster (id,
// brokers, Kafka version, and the broker settings that shape rebalances),
// which is recorded with every result.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// Cluster is a Kafka cluster the harness can use.
type Cluster interface {
	// Bootstrap returns the bootstrap.servers value for clients.
	Bootstrap() string
	// Props returns the client properties every client of the run needs to
	// reach the cluster (security settings for an external cluster; empty
	// for local ones). The caller must not modify the map.
	Props() kafkaconf.Props
	// Info describes the cluster as it is now.
	Info(ctx context.Context) (Info, error)
	// Close releases the cluster: a provider that started brokers stops them;
	// an external cluster is left alone.
	Close(ctx context.Context) error
}

// Nodes is implemented by providers that own their brokers' processes and
// can therefore crash and restart them (the chaos driver's broker faults).
type Nodes interface {
	// NodeIDs lists the node ids of the cluster, ascending.
	NodeIDs() []int
	// KillNode sends SIGKILL to the node's process: a crash, with no
	// controlled shutdown.
	KillNode(id int) error
	// StopNode shuts the node down cleanly (SIGTERM, then waits).
	StopNode(ctx context.Context, id int) error
	// StartNode starts a node that was killed or stopped, on its previous
	// data, and waits until the cluster sees it again.
	StartNode(ctx context.Context, id int) error
}

// Info is what `chaos cluster status --json` prints and what every result
// records about the cluster: the cluster record of cell.json, whose schema
// package runfolder owns (so that reading a result never reaches this
// package's clients).
type Info = runfolder.ClusterInfo

// NodeInfo describes one broker process of a local cluster.
type NodeInfo = runfolder.NodeInfo

// GroupSettings lists the broker settings that shape consumer-group
// behaviour, and therefore every pause chaosbench measures. Providers report
// them; the local provider sets them.
var GroupSettings = []string{
	"group.initial.rebalance.delay.ms",
	"group.min.session.timeout.ms",
	"group.max.session.timeout.ms",
	"group.consumer.session.timeout.ms",
	"group.consumer.min.session.timeout.ms",
	"group.consumer.max.session.timeout.ms",
	"group.consumer.heartbeat.interval.ms",
	"group.consumer.min.heartbeat.interval.ms",
	"group.consumer.max.heartbeat.interval.ms",
	"group.consumer.assignors",
	"group.coordinator.rebalance.protocols",
	"offsets.topic.replication.factor",
	"offsets.topic.num.partitions",
	"offsets.commit.timeout.ms",
	"min.insync.replicas",
	"default.replication.factor",
}

// Provider names.
const (
	ProviderExternal = "external"
	ProviderLocal    = "local"
	ProviderDocker   = "docker"
	ProviderAuto     = "auto"
)

// Options selects and configures a provider.
type Options struct {
	// Provider is external, local, docker or auto (the default): external
	// when a bootstrap address is given, else local when Java and a Kafka
	// distribution are available, else docker.
	Provider string
	// Bootstrap is the external cluster's bootstrap.servers; when empty,
	// KAFKA_BOOTSTRAP is used.
	Bootstrap string
	// Props are client properties passed through to every client (-X).
	Props kafkaconf.Props

	// Local is the configuration of the local provider.
	Local LocalConfig
}

// ErrNoProvider is returned by Open when no provider can be used.
var ErrNoProvider = errors.New("no Kafka cluster available")

// Open starts or attaches to a cluster as the options ask.
func Open(ctx context.Context, o Options) (Cluster, error) {
	if o.Bootstrap == "" {
		o.Bootstrap = os.Getenv("KAFKA_BOOTSTRAP")
	}
	p := o.Provider
	if p == "" {
		p = ProviderAuto
	}
	if p == ProviderAuto {
		switch {
		case o.Bootstrap != "":
			p = ProviderExternal
		case LocalAvailable(o.Local) == nil:
			p = ProviderLocal
		case DockerAvailable(ctx) == nil:
			p = ProviderDocker
		default:
			return nil, fmt.Errorf("%w: no bootstrap address (--bootstrap or KAFKA_BOOTSTRAP), local provider: %v, docker provider: %v",
				ErrNoProvider, LocalAvailable(o.Local), DockerAvailable(ctx))
		}
	}
	switch p {
	case ProviderExternal:
		if o.Bootstrap == "" {
			return nil, errors.New("external cluster: no bootstrap address: set --bootstrap or KAFKA_BOOTSTRAP")
		}
		return OpenExternal(ctx, o.Bootstrap, o.Props)
	case ProviderLocal:
		return StartLocal(ctx, o.Local)
	case ProviderDocker:
		return StartDocker(ctx, o.Local.Settings)
	default:
		return nil, fmt.Errorf("--provider %q: expected auto, external, local or docker", p)
	}
}

// Settings are broker properties, keyed by their Kafka names.
type Settings map[string]string

// ParseSetting parses "key=value" for --broker-config.
func ParseSetting(s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", fmt.Errorf("--broker-config %q: expected key=value, e.g. group.initial.rebalance.delay.ms=0", s)
	}
	return strings.TrimSpace(k), v, nil
}

// Merge returns base overlaid with over.
func (s Settings) Merge(over Settings) Settings {
	out := Settings{}
	for k, v := range s {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// Int returns the setting as an int, or def when unset.
func (s Settings) Int(key string, def int) (int, error) {
	v, ok := s[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("broker setting %s=%q: expected an integer", key, v)
	}
	return n, nil
}

// Keys returns the keys in sorted order.
func (s Settings) Keys() []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
