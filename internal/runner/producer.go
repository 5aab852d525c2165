package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/workloads"
)

// trafficProducer is the producer side of a cell: the load generator's
// engine, producing into the cell's topic and recording `produced` events.
type trafficProducer interface {
	// Run produces until the workload's traffic ends or ctx ends.
	Run(ctx context.Context) error
	// Stats is a live snapshot for the progress line.
	Stats() producerStats
	// SetPartitions tells the producer the topic's new partition count.
	SetPartitions(n int)
	// Close flushes and closes the history and saves the latency
	// histograms.
	Close() error
}

type producerStats struct {
	Acked, Errors int64
	Rate          float64 // acknowledged records/s over the last second
	P99           time.Duration
}

// engineProducer runs internal/loadgen's engine for a cell: its produced
// events go to the cell's history (producer-0.0.jsonl), its latency log to
// producer.hlog and its result to producer.json.
type engineProducer struct {
	p       *loadgen.Producer
	hist    *history.Writer
	hlog    *os.File
	outDir  string
	result  *loadgen.Result
	lastErr error
}

func newProducer(spec *workloads.Spec, topic string, c cluster.Cluster, newHistory func(proc string, inc int) (*history.Writer, error), outDir string, log io.Writer, clockURL string, skew time.Duration) (trafficProducer, error) {
	hist, err := newHistory("producer-0", 0)
	if err != nil {
		return nil, err
	}
	hist.Skew(skew)
	hlog, err := os.OpenFile(filepath.Join(outDir, "producer.hlog"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		hist.Close()
		return nil, err
	}
	p, err := loadgen.New(loadgen.Config{
		Spec: spec, Topic: topic, Bootstrap: netBootstrap(c, workloads.ProducerTarget), Props: c.Props(),
		History: hist, Proc: "producer-0", LatencyLog: hlog, Log: log,
		ClockURL: clockURL, ClockSkew: skew,
	})
	if err != nil {
		hist.Close()
		hlog.Close()
		return nil, err
	}
	return &engineProducer{p: p, hist: hist, hlog: hlog, outDir: outDir}, nil
}

func (e *engineProducer) Run(ctx context.Context) error {
	res, err := e.p.Run(ctx)
	e.result = res
	return err
}

func (e *engineProducer) Stats() producerStats {
	s := e.p.Snapshot()
	return producerStats{Acked: s.Acked, Errors: s.Errors, Rate: s.Rate, P99: s.P99}
}

func (e *engineProducer) SetPartitions(n int) { e.p.SetPartitions(n) }

func (e *engineProducer) Close() error {
	err := errors.Join(e.hist.Close(), e.hlog.Close())
	if e.result != nil {
		err = errors.Join(err, runfolder.WriteJSON(filepath.Join(e.outDir, "producer.json"), e.result))
	}
	return err
}
