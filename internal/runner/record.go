package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// beginRecord saves the cell's record, cell.json, as the cell begins: what
// the cell runs (its strategy, policy and client, topic and group, the
// effective consumer and producer settings by Kafka name, the cluster,
// the versions and the machine), partial until closeRecord.
func (c *cellRun) beginRecord() error {
	spec := c.opts.Spec
	c.record = runfolder.Cell{
		SchemaVersion: runfolder.SchemaVersion, Cell: c.cell.Name, Strategy: c.cell.Strategy,
		CommitPolicy: c.cell.CommitPolicy, Client: c.cell.Client, Iteration: c.iter,
		Topic: c.topic, Partitions: spec.Topic.Partitions, Group: c.group, Members: spec.Consumer.Members,
		Seed: spec.Seed, Consumer: c.consumerSettings(), Processing: spec.Consumer.Processing.String(),
		Producer: producerSettings(spec.Producer), ClientProperties: c.cluster.Props().Redacted(),
		Cluster: c.clusterRecord(), Versions: versions(c.info.KafkaVersion), Machine: machine(),
	}
	c.record.Begin(time.Now())
	if c.cell.Client == vocab.ClientJava {
		c.record.Versions.KafkaClients, c.record.Versions.Java = member.JavaVersions()
		c.record.Versions.JavaOptions = kafkaconf.RedactJVMOptions(member.JavaOptions())
	}
	return c.saveRecord()
}

// clusterRecord is the cluster as cell.json records it: a node's log
// inside the run folder is named relative to the run folder (results are
// copied between machines, and a path of the machine that ran them says
// nothing there).
func (c *cellRun) clusterRecord() runfolder.ClusterInfo {
	info := c.info
	info.Nodes = slices.Clone(info.Nodes)
	// The run folder may be named relative to the working directory (the
	// Makefile's results/...): both sides absolute before comparing.
	run, err := filepath.Abs(c.runDir)
	if err != nil {
		return info
	}
	for i, n := range info.Nodes {
		if rel, err := filepath.Rel(run, n.Log); err == nil && filepath.IsAbs(n.Log) && !strings.HasPrefix(rel, "..") {
			info.Nodes[i].Log = rel
		}
	}
	return info
}

// closeRecord saves the record at the cell's end: complete when *errp is
// nil, else partial with the reason (the interruption, when ctx ended). A
// failure to save becomes the cell's error.
func (c *cellRun) closeRecord(ctx context.Context, errp *error) {
	err := *errp
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	c.record.Finish(time.Now(), err)
	if serr := c.saveRecord(); serr != nil && err == nil {
		*errp = serr
	}
}

// saveRecord writes cell.json in the cell's folder (atomically: a reader
// sees the previous record or this one, never half of one).
func (c *cellRun) saveRecord() error {
	return runfolder.WriteJSON(filepath.Join(c.dir, "cell.json"), c.record)
}

// consumerSettings are the effective member settings, by Kafka name: a
// member's consumer settings (member.Config.ConsumerSettings), the
// client's and the group's, and the workload's client properties with
// their secrets masked. A static member's group.instance.id is its own
// name, recorded as "<member name>".
func (c *cellRun) consumerSettings() map[string]string {
	cfg := member.WorkloadConfig(c.opts.Spec, c.cell)
	cfg.Name = "<member name>"
	out := cfg.ConsumerSettings().Map()
	for k, v := range cfg.Props.Redacted() {
		out[k] = v
	}
	return out
}

// producerSettings are the producer's settings, by Kafka name.
func producerSettings(p workloads.Producer) map[string]string {
	rate := "unlimited"
	if p.Rate > 0 {
		rate = strconv.FormatFloat(p.Rate, 'f', -1, 64)
	}
	return map[string]string{
		"client":                                p.Client,
		"partitioner":                           p.Partitioner,
		"rate":                                  rate,
		"acks":                                  p.Acks,
		"enable.idempotence":                    strconv.FormatBool(p.Idempotence),
		"max.in.flight.requests.per.connection": strconv.Itoa(p.MaxInFlight),
		"linger.ms":                             strconv.FormatInt(p.Linger.Milliseconds(), 10),
		"batch.size":                            strconv.Itoa(p.BatchSize),
		"compression.type":                      p.Compression,
	}
}
