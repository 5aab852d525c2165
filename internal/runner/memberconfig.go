package runner

import (
	"maps"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// memberArgs is the command line of a member incarnation; its secret
// properties go through the environment (member.Config.Env).
func (c *cellRun) memberArgs(name string, inc int) []string {
	cfg := c.memberConfig(name, inc)
	return append([]string{"member"}, cfg.Args()...)
}

// memberConfig is the configuration of a member incarnation: the
// workload's member settings for the cell, the cell's group and topic, a
// processing seed drawn from the member's name (the same in every cell
// and incarnation, so that cells compare like for like), and the
// cluster's client properties under the workload's.
func (c *cellRun) memberConfig(name string, inc int) member.Config {
	cfg := member.WorkloadConfig(c.opts.Spec, c.cell)
	cfg.Name, cfg.Inc, cfg.HistoryDir = name, inc, c.histDir
	cfg.Bootstrap, cfg.Group, cfg.Topic = netBootstrap(c.cluster, name), c.group, c.topic
	cfg.Seed = c.opts.Spec.Rand("processing/" + name).Int64()
	// The members' control channel: their standard input, or the
	// driver's control endpoint, with the run's token.
	cfg.Control = c.opts.control == nil
	if c.opts.control != nil {
		cfg.ControlAddr, cfg.ControlToken = c.opts.control.Addr(), c.opts.controlToken
	}
	if vocab.IsTransactional(cfg.Policy) {
		cfg.OutputTopic = c.outputTopic
		cfg.TransactionalID = member.TransactionalID(c.opts.Spec.Consumer.Transaction.TransactionalID, c.group, name, inc)
	}
	cfg.ClockURL, cfg.ClockSkew = c.opts.clockURL, c.opts.ClockSkew[name]
	if c.opts.History.onTopic() {
		// The history topic's own bootstrap, never the member's network
		// path: a network step cuts the member off from the cell's
		// brokers, not its recording from the driver.
		cfg.HistorySink, cfg.HistoryTopic, cfg.HistoryBootstrap = c.opts.History.Sink, c.histCfg.Topic, c.histCfg.Bootstrap
	}
	// The cluster's properties, then the workload's over them.
	props := kafkaconf.Props{}
	maps.Copy(props, c.cluster.Props())
	maps.Copy(props, cfg.Props)
	cfg.Props = props
	return cfg
}
