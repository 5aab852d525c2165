package cluster_test

import (
	"context"
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
}
