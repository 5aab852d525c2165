package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tckafka "github.com/testcontainers/testcontainers-go/modules/kafka"
)

// DockerImage is the image the docker provider runs: Confluent's
// single-node KRaft image, whose 8.0 line is Apache Kafka 4.0.
const DockerImage = "confluentinc/confluent-local:8.0.0"

// DockerAvailable reports whether a Docker engine answers.
func DockerAvailable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("docker provider: %w", err)
	}
	defer cli.Close()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return fmt.Errorf("docker provider: no Docker engine reachable: %w", err)
	}
	return nil
}

// Docker is a single-node cluster in a container started by
// testcontainers-go's Kafka module.
type Docker struct {
	*External
	container *tckafka.KafkaContainer
	version   string
}

// StartDocker starts the container with the given broker settings (as
// KAFKA_* environment variables) and waits until it is ready.
func StartDocker(ctx context.Context, settings Settings) (*Docker, error) {
	if err := DockerAvailable(ctx); err != nil {
		return nil, err
	}
	env := map[string]string{}
	for k, v := range settings {
		env["KAFKA_"+strings.ToUpper(strings.ReplaceAll(k, ".", "_"))] = v
	}
	c, err := tckafka.Run(ctx, DockerImage, testcontainers.WithEnv(env))
	if err != nil {
		return nil, fmt.Errorf("docker provider: %w", err)
	}
	brokers, err := c.Brokers(ctx)
	if err != nil {
		_ = testcontainers.TerminateContainer(c)
		return nil, fmt.Errorf("docker provider: %w", err)
	}
	ext, err := OpenExternal(ctx, strings.Join(brokers, ","), nil)
	if err != nil {
		_ = testcontainers.TerminateContainer(c)
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := WaitReady(rctx, ext.adm, []int{1}, nil); err != nil {
		_ = testcontainers.TerminateContainer(c)
		return nil, err
	}
	return &Docker{External: ext, container: c}, nil
}

// Info implements Cluster.
func (d *Docker) Info(ctx context.Context) (Info, error) {
	info, err := d.External.Info(ctx)
	info.Provider = ProviderDocker
	return info, err
}

// Close implements Cluster: it terminates the container.
func (d *Docker) Close(ctx context.Context) error {
	_ = d.External.Close(ctx)
	return testcontainers.TerminateContainer(d.container)
}
