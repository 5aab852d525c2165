package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// DockerImage is the image the docker provider runs: the Apache Kafka
// project's own image of the release the local provider runs, so that a
// result does not depend on the provider. (testcontainers-go's Kafka
// module starts only Confluent's images, whose Kafka release differs: the
// container is described here instead, with the KRaft settings the
// apache/kafka image documents.)
const DockerImage = "apache/kafka:" + KafkaVersion

// Ports inside the container: clients (advertised as the mapped port on
// the Docker host), the broker's own listener, the controller.
const (
	dockerClientPort     = "9092/tcp"
	dockerBrokerPort     = 9094
	dockerControllerPort = 9093
	// dockerAdvertised is the file the container waits for: the client
	// listener's advertised address is known only once the port is
	// mapped, after the container started.
	dockerAdvertised = "/tmp/chaosbench-advertised-listeners"
)

// dockerStart waits for the advertised listeners, then runs the image's
// own start script, which writes the broker's configuration from the
// KAFKA_* variables and formats the storage.
const dockerStart = `while [ ! -s ` + dockerAdvertised + ` ]; do sleep 0.1; done
export KAFKA_ADVERTISED_LISTENERS="$(cat ` + dockerAdvertised + `)"
exec /etc/kafka/docker/run`

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

// Docker is a single-node KRaft cluster in a container of DockerImage,
// started with testcontainers-go.
type Docker struct {
	*External
	container testcontainers.Container
}

// dockerEnv returns the container's environment: a single combined
// broker and controller, the provider's default broker settings for one
// node, then settings, each as the image wants it (dockerEnvName).
func dockerEnv(settings Settings, clusterID string) (map[string]string, error) {
	if err := checkReservedSettings(settings); err != nil {
		return nil, err
	}
	env := map[string]string{
		"CLUSTER_ID":                           clusterID,
		"KAFKA_NODE_ID":                        "1",
		"KAFKA_PROCESS_ROLES":                  "broker,controller",
		"KAFKA_LISTENERS":                      fmt.Sprintf("PLAINTEXT://0.0.0.0:9092,BROKER://0.0.0.0:%d,CONTROLLER://0.0.0.0:%d", dockerBrokerPort, dockerControllerPort),
		"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"KAFKA_INTER_BROKER_LISTENER_NAME":     "BROKER",
		"KAFKA_CONTROLLER_LISTENER_NAMES":      "CONTROLLER",
		"KAFKA_CONTROLLER_QUORUM_VOTERS":       fmt.Sprintf("1@localhost:%d", dockerControllerPort),
	}
	for k, v := range DefaultLocalSettings(1).Merge(settings) {
		env[dockerEnvName(k)] = v
	}
	return env, nil
}

// dockerEnvName is the variable the apache/kafka image reads a broker
// property from: KAFKA_ and the name in upper case, with every '.' made
// '_', every '_' made '__' and every '-' made '___' (its documentation,
// "Using environment variables").
func dockerEnvName(key string) string {
	r := strings.NewReplacer("_", "__", "-", "___", ".", "_")
	return "KAFKA_" + strings.ToUpper(r.Replace(key))
}

// StartDocker starts the container with the given broker settings and
// waits until the broker is ready.
func StartDocker(ctx context.Context, settings Settings) (*Docker, error) {
	if err := DockerAvailable(ctx); err != nil {
		return nil, err
	}
	id, err := newClusterID()
	if err != nil {
		return nil, err
	}
	env, err := dockerEnv(settings, id)
	if err != nil {
		return nil, err
	}
	c, err := testcontainers.Run(ctx, DockerImage,
		testcontainers.WithExposedPorts(dockerClientPort),
		testcontainers.WithEnv(env),
		testcontainers.WithEntrypoint("sh", "-c"),
		testcontainers.WithCmd(dockerStart),
		testcontainers.WithLifecycleHooks(testcontainers.ContainerLifecycleHooks{
			PostStarts: []testcontainers.ContainerHook{advertise},
		}),
	)
	if err != nil {
		if c != nil {
			_ = testcontainers.TerminateContainer(c)
		}
		return nil, fmt.Errorf("docker provider (%s): %w", DockerImage, err)
	}
	bootstrap, err := c.PortEndpoint(ctx, dockerClientPort, "")
	if err != nil {
		_ = testcontainers.TerminateContainer(c)
		return nil, fmt.Errorf("docker provider: %w", err)
	}
	ext, err := OpenExternal(ctx, bootstrap, nil)
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

// advertise gives the started container its client listener's address on
// the Docker host, then waits for the broker to start.
func advertise(ctx context.Context, c testcontainers.Container) error {
	endpoint, err := c.PortEndpoint(ctx, dockerClientPort, "")
	if err != nil {
		return err
	}
	listeners := fmt.Sprintf("PLAINTEXT://%s,BROKER://localhost:%d", endpoint, dockerBrokerPort)
	if err := c.CopyToContainer(ctx, []byte(listeners), dockerAdvertised, 0o644); err != nil {
		return fmt.Errorf("advertised listeners: %w", err)
	}
	return wait.ForLog("Kafka Server started").WithStartupTimeout(2*time.Minute).WaitUntilReady(ctx, c)
}

// Info implements Cluster. The Kafka version is the image's, which the
// broker's own report (BrokerVersion) confirms.
func (d *Docker) Info(ctx context.Context) (Info, error) {
	return d.External.info(ctx, ProviderDocker, KafkaVersion)
}

// Close implements Cluster: it terminates the container.
func (d *Docker) Close(ctx context.Context) error {
	_ = d.External.Close(ctx)
	return testcontainers.TerminateContainer(d.container)
}
