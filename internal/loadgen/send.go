package loadgen

import (
	"context"
	"fmt"
	"time"

	"github.com/chaosbench/chaosbench/internal/history"
	"github.com/chaosbench/chaosbench/internal/stamp"
)

// The sending path: the one goroutine that paces, keys, partitions and
// sends the records, the delivery reports that come back, and the bound
// on records in flight between the two.

// send is the producer's one sending goroutine: pacer, key stream,
// partitioner, client. It returns whether ctx ended it early.
func (p *Producer) send(ctx context.Context, c client) (interrupted bool, err error) {
	s := p.spec
	pacer := p.sched.Pacer()
	parts := p.wantParts.Load()
	key := make([]byte, 0, 64)
	value := make([]byte, p.valueSize())
	copy(value, p.value)
	st := stamp.Stamp{Producer: p.proc}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for n := int64(0); ; n++ {
		if s.Records > 0 && n >= s.Records {
			return false, nil
		}
		now := time.Since(p.start)
		at, unlimited := pacer.Due(n, now)
		if s.Duration > 0 && at >= s.Duration {
			if unlimited {
				return false, nil
			}
			// Wait for the end of traffic, not just the last record.
			if wait := s.Duration - now; wait > 0 {
				timer.Reset(wait)
				select {
				case <-ctx.Done():
					return true, nil
				case <-timer.C:
				}
			}
			return false, nil
		}
		if at > now {
			timer.Reset(at - now)
			select {
			case <-ctx.Done():
				timer.Stop()
				return true, nil
			case <-timer.C:
			}
		} else if n&255 == 0 && ctx.Err() != nil {
			return true, nil
		}
		if p.failed.Load() != nil {
			return false, nil
		}
		if want := p.wantParts.Load(); want != parts {
			actx, cancel := context.WithTimeout(ctx, 60*time.Second)
			err := c.awaitPartitions(actx, want)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return true, nil
				}
				return false, fmt.Errorf("topic %s grew to %d partitions, but the %s client did not see them: %w", p.topic, want, c.name(), err)
			}
			parts = want
			p.mu.Lock()
			for int32(len(p.perPart)) < parts {
				p.perPart = append(p.perPart, 0)
			}
			p.progress.Partitions = parts
			p.mu.Unlock()
		}

		k, seq := p.gen.Next()
		key = p.keys.Append(key[:0], k)
		r := outRecord{key: k, seq: seq, partition: p.part.Partition(key, parts), intended: p.startNs + int64(at)}
		if !p.awaitRoom(ctx) {
			return true, nil
		}
		p.outstanding.Add(1)
		p.sent.Add(1)
		r.sent = p.now()
		st.Seq, st.IntendedT, st.SentT = seq, r.intended, r.sent
		stamp.Put(value, st)
		if err := c.produce(&r, key, value); err != nil {
			// Not taken: no report will come. Record it as failed now.
			p.deliver(&r, p.keyName(r.key), -1, fmt.Errorf("produce: %w", err), false)
		}
	}
}

// valueSize is the size of a record's value: the workload's value.size,
// or the stamp's when that is smaller (the stamp is never cut).
func (p *Producer) valueSize() int {
	return max(len(p.value), stamp.Len(len(p.proc)))
}

// deliver records one delivery report of the record r, whose key is
// named key. It is called by the clients' report goroutines.
func (p *Producer) deliver(r *outRecord, key string, offset int64, err error, ambiguous bool) {
	ack := p.now()
	p.mu.Lock()
	// The sink encodes the event before Append returns: one event, reused
	// under the lock, rather than one allocated per record.
	ev := &p.ev
	*ev = history.Event{
		Kind: history.Produced, T: ack, Topic: p.topic,
		Partition: r.partition, Offset: offset,
		Key: key, Seq: r.seq, IntendedT: r.intended, SentT: r.sent,
	}
	if err != nil {
		ev.Offset = -1
		ev.Err = err.Error()
		ev.Ambiguous = ambiguous
	}
	if aerr := p.cfg.History.Append(ev); aerr != nil && p.failed.Load() == nil {
		e := fmt.Errorf("history: %w", aerr)
		p.failed.Store(&e)
	}
	if err == nil {
		p.lat.add(ack-r.intended, ack-r.sent)
		if int(r.partition) < len(p.perPart) {
			p.perPart[r.partition]++
		}
	}
	p.mu.Unlock()
	if err == nil {
		p.acked.Add(1)
	} else {
		p.errs.Add(1)
		if ambiguous {
			p.ambiguous.Add(1)
		}
	}
	if p.outstanding.Add(-1) <= p.resumeAt && p.waiting.Load() && p.waiting.CompareAndSwap(true, false) {
		select {
		case p.room <- struct{}{}:
		default:
		}
	}
}

// awaitRoom returns once fewer than MaxOutstanding records await their
// reports (true), or when ctx ends (false). A report that brings the count
// down to resumeAt while the sender waits wakes it: the sender publishes
// that it waits before it checks the count again, so either it sees the
// room or a report sees it waiting. A stale wake-up only makes it check
// again.
func (p *Producer) awaitRoom(ctx context.Context) bool {
	limit := int64(p.cfg.MaxOutstanding)
	for p.outstanding.Load() >= limit {
		p.waiting.Store(true)
		if p.outstanding.Load() < limit {
			p.waiting.Store(false)
			return true
		}
		select {
		case <-p.room:
		case <-ctx.Done():
			p.waiting.Store(false)
			return false
		}
	}
	return true
}
