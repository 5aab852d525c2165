package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/historytopic"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// HistoryOptions say where a run's members and producer write their
// histories (chaos run --history-sink): their files (the default), a
// history topic, or both. The driver's own history (chaos.0.jsonl) and a
// transactional cell's verifier's are always files: they are written
// where the run folder is.
type HistoryOptions struct {
	// Sink is runfolder.SinkFile (or empty), SinkTopic or SinkTee.
	Sink string
	// Topic is the history topic: DefaultHistoryTopic when empty.
	Topic string
	// Bootstrap is the history topic's cluster: the run's own when empty.
	// Its client properties are the run's (-X, -F).
	Bootstrap string
}

// DefaultHistoryTopic is the history topic when none is named. Every
// cell of every run may share it: each record carries its cell
// (historytopic.CellHeader).
const DefaultHistoryTopic = "chaosbench-history"

func (h HistoryOptions) onTopic() bool {
	return h.Sink == runfolder.SinkTopic || h.Sink == runfolder.SinkTee
}

// beginHistorySink prepares a cell's history topic, when the run writes
// to one: the topic created if it is not there (historytopic.Partitions
// partitions, the workload's replication), its end offsets recorded in
// cell.json as where the cell's records begin, and the driver following
// it into the cell's files (historytopic.Follow), so that it reads the
// members' histories during the cell as it reads files.
func (c *cellRun) beginHistorySink(ctx context.Context) error {
	h := c.opts.History
	if !h.onTopic() {
		return nil
	}
	conn, err := c.cluster.Props().Connection().FranzOpts()
	if err != nil {
		return fmt.Errorf("history topic: %w", err)
	}
	cfg := historytopic.Config{Bootstrap: h.Bootstrap, Opts: conn, Topic: h.Topic, Cell: c.topic}
	if cfg.Bootstrap == "" {
		cfg.Bootstrap = c.cluster.Bootstrap()
	}
	if cfg.Topic == "" {
		cfg.Topic = DefaultHistoryTopic
	}
	ectx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := historytopic.Ensure(ectx, cfg, int16(c.opts.Spec.Topic.Replication)); err != nil {
		return err
	}
	start, err := historytopic.EndOffsets(ectx, cfg)
	if err != nil {
		return err
	}
	c.record.History = &runfolder.HistorySink{Sink: h.Sink, Topic: cfg.Topic, Bootstrap: cfg.Bootstrap, Cell: c.topic, StartOffsets: start}
	if err := c.saveRecord(); err != nil {
		return err
	}
	c.split, err = historytopic.Follow(c.dir, *c.record.History, cfg)
	if err != nil {
		return err
	}
	c.histCfg = cfg
	return nil
}

// endHistorySink finishes the split of the cell's history topic once
// every member and the producer have ended: the topic read to its end,
// the files closed, history-split.json complete. A split that cannot
// finish fails the cell (its record says why, and the analysis takes it
// as partial); `chaos analyze` can finish it later while the topic is
// there.
func (c *cellRun) endHistorySink(errp *error) {
	if c.split == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := c.split.Finish(ctx)
	if err != nil {
		c.logf("history topic %s: %v", c.histCfg.Topic, err)
		if *errp == nil {
			*errp = fmt.Errorf("history topic split: %w", err)
		}
		return
	}
	s, _, _ := runfolder.ReadHistorySplit(c.dir)
	c.logf("history topic %s: %d records split into %d files (%d records of other cells skipped)", c.histCfg.Topic, s.Records, len(s.Files), s.Skipped)
}

// newHistory is the history writer of a process of the cell (a member's
// is made by the member itself, from the same settings): its file, the
// history topic, or both.
func (c *cellRun) newHistory(proc string, inc int) (*history.Writer, error) {
	return historytopic.NewWriter(c.opts.History.Sink, c.histDir, proc, inc, c.histCfg)
}

// CheckHistory refuses, before a run starts, history options the
// cluster's client properties cannot serve: an unknown sink, a bad topic
// name, properties the driver's and the Go processes' franz-go client of
// the topic cannot apply (the java member's kafka-clients takes what its
// consumer takes).
func CheckHistory(h HistoryOptions, copts cluster.Options) error {
	if h.Sink != "" && !slices.Contains(runfolder.Sinks, h.Sink) {
		return fmt.Errorf("--history-sink %q: expected one of %s", h.Sink, strings.Join(runfolder.Sinks, ", "))
	}
	if !h.onTopic() {
		if h.Topic != "" || h.Bootstrap != "" {
			return fmt.Errorf("--history-topic and --history-bootstrap: only with --history-sink topic or tee (the history goes to files, --history-sink %s)", runfolder.SinkFile)
		}
		return nil
	}
	if h.Topic != "" {
		if err := historytopic.CheckTopic(h.Topic); err != nil {
			return fmt.Errorf("--history-topic %w", err)
		}
	}
	if _, err := copts.Props.Connection().FranzOpts(); err != nil {
		return fmt.Errorf("--history-sink %s: the history topic's client (franz-go): %w", h.Sink, err)
	}
	return nil
}
