package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
)

// External is a cluster chaosbench did not start: a bootstrap address and
// the client properties (-X) needed to reach it. Close leaves it running.
type External struct {
	bootstrap string
	props     kafkaconf.Props
	adm       *kadm.Client
}

// externalTimeout bounds the wait for an external cluster's first answer.
var externalTimeout = 15 * time.Second

// OpenExternal connects to an existing cluster and checks that it answers
// metadata requests. A broker that takes the connection and never
// answers is named, with the request it did not answer.
func OpenExternal(ctx context.Context, bootstrap string, props kafkaconf.Props) (*External, error) {
	silent := newUnanswered()
	adm, err := NewAdmin(bootstrap, props, kgo.WithHooks(silent))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, externalTimeout)
	defer cancel()
	if _, err := adm.ListBrokers(ctx); err != nil {
		adm.Close()
		if why := silent.explain(externalTimeout); why != "" && errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("external cluster %s: %s", bootstrap, why)
		}
		return nil, fmt.Errorf("external cluster %s: %w", bootstrap, err)
	}
	return &External{bootstrap: bootstrap, props: props.Clone(), adm: adm}, nil
}

// Bootstrap implements Cluster.
func (e *External) Bootstrap() string { return e.bootstrap }

// Props implements Cluster.
func (e *External) Props() kafkaconf.Props { return e.props }

// Info implements Cluster. The Kafka version is what the broker reports
// (BrokerVersion): nothing else is known of a cluster chaosbench did not
// start.
func (e *External) Info(ctx context.Context) (Info, error) {
	return e.info(ctx, ProviderExternal, "")
}

// info describes the cluster as provider; kafka is the Kafka version the
// provider knows it runs ("": the broker's report).
func (e *External) info(ctx context.Context, provider, kafka string) (Info, error) {
	info := Info{Provider: provider, Bootstrap: e.bootstrap, KafkaVersion: kafka}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := describe(ctx, e.adm, &info)
	return info, err
}

// Close implements Cluster; the cluster itself is left alone.
func (e *External) Close(context.Context) error {
	e.adm.Close()
	return nil
}
