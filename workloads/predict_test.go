package workloads

import (
	"math"
	"testing"

	"github.com/chaosbench/chaosbench/internal/keygen"
	"github.com/chaosbench/chaosbench/internal/partitioner"
)

func testKeyspace(t *testing.T, format string, n int) *keygen.Keyspace {
	f, err := keygen.ParseFormat(format)
	if err != nil {
		t.Fatal(err)
	}
	return &keygen.Keyspace{Format: f, Count: n}
}

func TestPredictLoad(t *testing.T) {
	ks := testKeyspace(t, "k%06d", 1000)
	uni, _ := keygen.Uniform(1000)
	// One partition takes everything.
	if l := PredictLoad(ks, uni, partitioner.Murmur2Partitioner, 1); math.Abs(l.Share[0]-1) > 1e-9 || l.Keys[0] != 1000 || l.CV() > 1e-9 || math.Abs(l.MaxOverMean()-1) > 1e-9 {
		t.Errorf("one partition: %+v", l)
	}
	for _, name := range partitioner.Names() {
		p, _ := partitioner.New(name)
		l := PredictLoad(ks, uni, p, 12)
		sum, keys := 0.0, 0
		for i := range l.Share {
			sum += l.Share[i]
			keys += l.Keys[i]
			// Uniform traffic: a partition's share is its share of the keys.
			if math.Abs(l.Share[i]-float64(l.Keys[i])/1000) > 1e-12 {
				t.Errorf("%s: partition %d: share %v with %d of 1000 keys", name, i, l.Share[i], l.Keys[i])
			}
		}
		if math.Abs(sum-1) > 1e-9 || keys != 1000 {
			t.Errorf("%s: shares sum to %v over %d keys", name, sum, keys)
		}
	}
	// A hot key: its partition carries at least its share.
	hot, _ := keygen.Hotspot(1000, 1, 0.9)
	l := PredictLoad(ks, hot, partitioner.Murmur2Partitioner, 12)
	hp := partitioner.Murmur2Partitioner.Partition([]byte("k000000"), 12)
	if p, s := l.Hottest(); p != hp || s < 0.9 || l.MaxOverMean() < 10.8 {
		t.Errorf("hottest %d (%v), want %d with >= 0.9; max/mean %v", p, s, hp, l.MaxOverMean())
	}
}

func TestPredictMovement(t *testing.T) {
	ks := testKeyspace(t, "k%06d", 20000)
	uni, _ := keygen.Uniform(20000)
	for _, name := range partitioner.Names() {
		p, _ := partitioner.New(name)
		if m := PredictMovement(ks, uni, p, 12, 12); m.Keys != 0 || m.Traffic != 0 {
			t.Errorf("%s: 12 -> 12 moves %+v", name, m)
		}
	}
	// Jump moves (P'-P)/P' of the keys. A modulo hash keeps a key iff
	// h mod P == h mod P': from 12 to 24 iff h mod 24 < 12 (half moves);
	// from 8 to 12 iff h mod 24 < 8 (two thirds move).
	for _, c := range []struct {
		name     string
		from, to int32
		want     float64
	}{
		{"jump", 12, 24, 0.5}, {"jump", 8, 12, 1.0 / 3}, {"murmur2", 12, 24, 0.5}, {"murmur2", 8, 12, 2.0 / 3},
		{"consistent", 8, 12, 2.0 / 3}, {"fnv1a", 8, 12, 2.0 / 3},
	} {
		p, _ := partitioner.New(c.name)
		m := PredictMovement(ks, uni, p, c.from, c.to)
		if math.Abs(m.Keys-c.want) > 0.015 || math.Abs(m.Traffic-m.Keys) > 1e-9 {
			t.Errorf("%s %d -> %d: moved %+v, want keys %.3f", c.name, c.from, c.to, m, c.want)
		}
	}
}
