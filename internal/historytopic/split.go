package historytopic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/runfolder"
)

// A cell's split: the records of its history topic from the offsets
// before its first process started (HistorySink.StartOffsets) to the
// topic's end once its last process has ended, those tagged with the
// cell written into its files by a history.Splitter. The split is
// recorded in history-split.json: begun partial, finished complete or
// with the reason; a split begun again goes on from the files it left
// (the Splitter reads them along), so it is safe to run any number of
// times and never overwrites a line.
//
// During a run the driver follows the topic (Follow): the files grow as
// the processes write, and the driver reads them to see the group form and
// to find a partition's owner, as it reads the file sink's. Finish reads
// on to the end once every process has ended.

// Follower splits a cell's history topic into its files as the records
// come.
type Follower struct {
	cfg    Config
	cell   string // the cell folder
	record runfolder.HistorySplit
	cl     *kgo.Client
	sp     *history.Splitter
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	next    map[int32]int64 // the next offset to read, by partition
	until   map[int32]int64 // set by Finish: read up to these
	reached chan struct{}   // closed once until is reached (markReached)
	closed  bool
	records int64
	skipped int64
	err     error
}

// Follow begins the split of a cell's history topic (the cell folder's
// HistorySink) and follows it from a goroutine until Finish or Stop. It
// writes history-split.json, partial.
func Follow(cellDir string, sink runfolder.HistorySink, cfg Config) (*Follower, error) {
	cfg.Topic, cfg.Cell = sink.Topic, sink.Cell
	if cfg.Bootstrap == "" {
		cfg.Bootstrap = sink.Bootstrap
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if len(sink.StartOffsets) == 0 {
		return nil, fmt.Errorf("history topic %s: the cell's record has no start offsets", sink.Topic)
	}
	dir := sink.SplitDir(cellDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(cellDir, dir)
	if err != nil {
		return nil, err
	}
	f := &Follower{cfg: cfg, cell: cellDir, sp: history.NewSplitter(dir), done: make(chan struct{}),
		next: map[int32]int64{}, reached: make(chan struct{})}
	offsets := map[int32]kgo.Offset{}
	for p, o := range sink.StartOffsets {
		if p < 0 || p >= history.MaxPartitions || o < 0 || o > history.MaxOffset {
			return nil, fmt.Errorf("history topic %s: start offset %d of partition %d: out of range", sink.Topic, o, p)
		}
		offsets[p] = kgo.NewOffset().At(o)
		f.next[p] = o
	}
	// A split begun before keeps its first start.
	if old, found, err := runfolder.ReadHistorySplit(cellDir); err != nil {
		return nil, err
	} else if found {
		f.record = old
	}
	f.record.SchemaVersion, f.record.Topic, f.record.Cell, f.record.Dir = runfolder.SchemaVersion, sink.Topic, sink.Cell, rel
	f.record.Begin(time.Now())
	if err := f.save(); err != nil {
		return nil, err
	}
	f.cl, err = cfg.client(
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{sink.Topic: offsets}),
		kgo.FetchMaxWait(100*time.Millisecond),
		// Records gone from the topic (its retention) are an error, not a
		// silent jump to what is left.
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.ClientID("chaosbench-history-split"),
	)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go f.run(ctx)
	return f, nil
}

func (f *Follower) save() error {
	return runfolder.WriteJSON(filepath.Join(f.cell, runfolder.HistorySplitFile), f.record)
}

// run reads records until ctx ends, Finish's offsets are reached, or an
// error.
func (f *Follower) run(ctx context.Context) {
	defer close(f.done)
	for {
		fetches := f.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		var fatal error
		fetches.EachError(func(t string, p int32, err error) {
			if errors.Is(err, context.Canceled) {
				return
			}
			// Retriable errors are franz-go's to retry; a record the
			// client could not decode, or an offset out of range (the
			// records were deleted), is not.
			if kerr.IsRetriable(err) {
				return
			}
			if fatal == nil {
				fatal = fmt.Errorf("history topic %s partition %d: %w", t, p, err)
			}
		})
		f.mu.Lock()
		fetches.EachRecord(func(r *kgo.Record) {
			if fatal != nil {
				return
			}
			f.next[r.Partition] = r.Offset + 1
			if !f.ours(r) {
				f.skipped++
				return
			}
			if err := f.sp.Add(string(r.Key), r.Value); err != nil {
				fatal = fmt.Errorf("history topic %s partition %d offset %d: %w", r.Topic, r.Partition, r.Offset, err)
				return
			}
			f.records++
		})
		if err := f.sp.Flush(); err != nil && fatal == nil {
			fatal = err
		}
		if fatal != nil {
			f.err = fatal
			f.mu.Unlock()
			return
		}
		if f.until != nil && f.reachedLocked() {
			f.markReached()
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
	}
}

// ours reports whether a record is the cell's: its CellHeader says so.
func (f *Follower) ours(r *kgo.Record) bool {
	for _, h := range r.Headers {
		if h.Key == CellHeader {
			return bytes.Equal(h.Value, []byte(f.cfg.Cell))
		}
	}
	return false
}

func (f *Follower) reachedLocked() bool {
	for p, end := range f.until {
		if f.next[p] < end {
			return false
		}
	}
	return true
}

// markReached closes reached, once; f.mu is held.
func (f *Follower) markReached() {
	if !f.closed {
		f.closed = true
		close(f.reached)
	}
}

// Finish reads on to the topic's end offsets as they are now, once every
// process of the cell has ended, closes the files and records the split
// complete; on an error (ctx ends first, a line the files refuse) it
// records it partial, with the reason.
func (f *Follower) Finish(ctx context.Context) error {
	ends, err := endOffsets(ctx, kadm.NewClient(f.cl), f.cfg.Topic)
	if err == nil {
		f.mu.Lock()
		for p := range ends {
			if _, ok := f.next[p]; !ok {
				// A partition added since the cell began: its records
				// are not the cell's processes' (their keys had their
				// partitions), but read them to be sure.
				err = fmt.Errorf("history topic %s: partition %d appeared during the cell: split it again with every partition", f.cfg.Topic, p)
			}
		}
		f.until = ends
		if err == nil && f.reachedLocked() && f.err == nil {
			f.markReached()
		}
		f.mu.Unlock()
	}
	if err == nil {
		select {
		case <-f.reached:
		case <-f.done:
		case <-ctx.Done():
			err = fmt.Errorf("history topic %s: the split did not reach the topic's end: %w", f.cfg.Topic, ctx.Err())
		}
	}
	f.mu.Lock()
	f.record.EndOffsets = ends
	f.mu.Unlock()
	return f.end(err)
}

// Stop ends the split where it is (the run was interrupted) and records it
// partial with why.
func (f *Follower) Stop(why error) error {
	if why == nil {
		why = errors.New("stopped")
	}
	return f.end(why)
}

func (f *Follower) end(err error) error {
	f.cancel()
	<-f.done
	f.cl.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	err = errors.Join(err, f.err, f.sp.Close())
	f.record.Records, f.record.Skipped = f.records, f.skipped
	f.record.Files = f.record.Files[:0]
	for _, sf := range f.sp.Files() {
		f.record.Files = append(f.record.Files, runfolder.SplitFile{File: sf.File, Lines: sf.Lines, Bytes: sf.Bytes, Kept: sf.Kept})
	}
	f.record.Finish(time.Now(), err)
	if serr := f.save(); serr != nil {
		return errors.Join(err, serr)
	}
	return err
}

// SplitCell splits a cell's history topic into its files (the cell
// record's HistorySink), when its split is not complete yet: chaos analyze
// of a cell whose run could not finish it. cfg gives the client
// properties and, to reach the cluster elsewhere than the record says, a
// bootstrap. It reports whether it split anything; a cell of the file
// sink, or one already split, is left as it is.
func SplitCell(ctx context.Context, cellDir string, cfg Config) (bool, error) {
	c, err := runfolder.ReadCell(cellDir)
	if err != nil {
		return false, err
	}
	if c.History == nil || c.History.Sink == runfolder.SinkFile {
		return false, nil
	}
	if s, found, err := runfolder.ReadHistorySplit(cellDir); err != nil {
		return false, err
	} else if found && s.Complete {
		return false, nil
	}
	// Reach the cluster first: a cluster that is gone (a local run's)
	// leaves the record as it was.
	probe := cfg
	probe.Topic, probe.Cell = c.History.Topic, c.History.Cell
	if probe.Bootstrap == "" {
		probe.Bootstrap = c.History.Bootstrap
	}
	pctx, cancel := context.WithTimeout(ctx, ReachTimeout)
	_, err = EndOffsets(pctx, probe)
	cancel()
	if err != nil {
		return false, fmt.Errorf("history topic %s at %s: %w", probe.Topic, probe.Bootstrap, err)
	}
	f, err := Follow(cellDir, *c.History, cfg)
	if err != nil {
		return false, err
	}
	return true, f.Finish(ctx)
}

// ReachTimeout bounds how long SplitCell tries to reach the history
// topic's cluster before it gives up on a cell.
const ReachTimeout = 15 * time.Second
