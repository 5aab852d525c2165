package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
)

// TestDockerProvider starts testcontainers-go's Kafka module. Machines
// without a Docker engine skip it, saying so.
func TestDockerProvider(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := cluster.DockerAvailable(ctx); err != nil {
		t.Skipf("skipping the docker provider: %v", err)
	}
	c, err := cluster.StartDocker(ctx, cluster.Settings{"group.initial.rebalance.delay.ms": "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Provider != cluster.ProviderDocker || info.Brokers != 1 || info.ClusterID == "" {
		t.Errorf("info = %+v", info)
	}
	// The same Kafka as the local provider's, as the broker itself says.
	if info.KafkaVersion != cluster.KafkaVersion || !strings.Contains(info.BrokerVersion, majorMinor(cluster.KafkaVersion)) {
		t.Errorf("kafka_version %q, broker_version %q: want %s", info.KafkaVersion, info.BrokerVersion, cluster.KafkaVersion)
	}
	if got := info.BrokerSettings["group.initial.rebalance.delay.ms"]; got != "0" {
		t.Errorf("group.initial.rebalance.delay.ms = %q, want the setting given, 0", got)
	}
}

// majorMinor returns "v4.4" of "4.4.0".
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return "v" + v
	}
	return "v" + parts[0] + "." + parts[1]
}
