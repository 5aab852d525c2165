package synth

import "github.com/chaosbench/chaosbench/internal/history"

// The producer: records of random keys, each key on a fixed partition,
// numbered per key; the anomalies it injects are counted in Expected.

// keyFor draws a key and returns it with its partition.
func (g *gen) keyFor() (int32, int32) {
	k := int32(g.rng.Intn(g.cfg.Keys))
	// A key's partition: a fixed hash, as a partitioner would.
	h := uint32(k)*2654435761 + 7
	return k, int32(h % uint32(g.cfg.Partitions))
}

// produce writes one record at t (lose: acknowledged but never in the
// log; twice: written twice, a producer duplicate).
func (g *gen) produce(t, lat int64, lose, twice bool) error {
	k, pid := g.keyFor()
	p := g.parts[pid]
	seq := g.seqs[k]
	g.seqs[k]++
	copies := 1
	if twice {
		copies = 2
		g.exp.ProducerDups++
	}
	for range copies {
		off := p.next
		p.next++
		if lose {
			g.exp.Lost++ // acknowledged, never in the log
		} else {
			p.log = append(p.log, record{offset: off, t: t, key: k, seq: seq})
			g.schedule(p, lat)
		}
		g.exp.Acked++
		e := &g.ev
		*e = history.Event{Kind: history.Produced, T: t, Partition: pid, Offset: off, Key: g.keys[k], Seq: seq, IntendedT: t, SentT: t}
		if err := g.emit(g.prod, e); err != nil {
			return err
		}
	}
	return nil
}

// produceSwapped writes seq s+1 then s of one key into one partition.
func (g *gen) produceSwapped(t, lat int64) error {
	k, pid := g.keyFor()
	p := g.parts[pid]
	s := g.seqs[k]
	g.seqs[k] += 2
	g.exp.Reorders++
	for i, seq := range []int64{s + 1, s} {
		off := p.next
		p.next++
		tt := t + int64(i)
		p.log = append(p.log, record{offset: off, t: tt, key: k, seq: seq})
		g.schedule(p, lat)
		g.exp.Acked++
		e := &g.ev
		*e = history.Event{Kind: history.Produced, T: tt, Partition: pid, Offset: off, Key: g.keys[k], Seq: seq, IntendedT: tt, SentT: tt}
		if err := g.emit(g.prod, e); err != nil {
			return err
		}
	}
	return nil
}
