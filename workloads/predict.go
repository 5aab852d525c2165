package workloads

import (
	"math"

	"github.com/chaosbench/chaosbench/internal/keygen"
	"github.com/chaosbench/chaosbench/internal/partitioner"
)

// PartitionLoad is the predicted load of a topic's partitions under a key
// distribution and a partitioner: exact, from the distribution's key
// probabilities, not from a sample.
type PartitionLoad struct {
	Partitioner string `json:"partitioner"`
	Partitions  int32  `json:"partitions"`
	// Share is each partition's share of the traffic; Keys how many keys
	// it holds.
	Share []float64 `json:"share"`
	Keys  []int     `json:"keys"`
}

// PredictLoad computes the share of traffic and the number of keys of each
// of n partitions. `loadgen plan` prints it; the capacity report takes the
// hottest partition's share from it where it models a partition count it
// did not measure.
func PredictLoad(ks *keygen.Keyspace, dist keygen.Distribution, p partitioner.Partitioner, n int32) PartitionLoad {
	l := PartitionLoad{Partitioner: p.Name(), Partitions: n, Share: make([]float64, n), Keys: make([]int, n)}
	buf := make([]byte, 0, 64)
	for i := 0; i < ks.Len(); i++ {
		buf = ks.Append(buf[:0], i)
		part := p.Partition(buf, n)
		l.Share[part] += dist.Prob(i)
		l.Keys[part]++
	}
	return l
}

// Hottest returns the partition with the largest share.
func (l PartitionLoad) Hottest() (partition int32, share float64) {
	for i, s := range l.Share {
		if s > share {
			partition, share = int32(i), s
		}
	}
	return partition, share
}

// MaxOverMean is the hottest partition's share over the mean share: 1 is
// perfectly even.
func (l PartitionLoad) MaxOverMean() float64 {
	_, h := l.Hottest()
	return h * float64(l.Partitions)
}

// CV is the coefficient of variation of the partitions' shares (standard
// deviation over mean): 0 is perfectly even.
func (l PartitionLoad) CV() float64 {
	mean := 1 / float64(l.Partitions)
	v := 0.0
	for _, s := range l.Share {
		v += (s - mean) * (s - mean)
	}
	return math.Sqrt(v/float64(l.Partitions)) / mean
}

// Movement is what a partition count change does to keys.
type Movement struct {
	Partitioner string `json:"partitioner"`
	From        int32  `json:"from"`
	To          int32  `json:"to"`
	// Keys is the fraction of keys whose partition changes; Traffic the
	// fraction of the traffic they carry (the records whose per-key order
	// can break across the change).
	Keys    float64 `json:"keys"`
	Traffic float64 `json:"traffic"`
}

// PredictMovement computes which keys move when the partition count goes
// from `from` to `to`.
func PredictMovement(ks *keygen.Keyspace, dist keygen.Distribution, p partitioner.Partitioner, from, to int32) Movement {
	m := Movement{Partitioner: p.Name(), From: from, To: to}
	buf := make([]byte, 0, 64)
	moved := 0
	for i := 0; i < ks.Len(); i++ {
		buf = ks.Append(buf[:0], i)
		if p.Partition(buf, from) != p.Partition(buf, to) {
			moved++
			m.Traffic += dist.Prob(i)
		}
	}
	m.Keys = float64(moved) / float64(ks.Len())
	return m
}

// PredictLoad is the predicted load of the workload's keys over n
// partitions under its partitioner.
func (s *Spec) PredictLoad(n int32) (PartitionLoad, error) {
	ks, dist, err := s.Keyspace()
	if err != nil {
		return PartitionLoad{}, err
	}
	p, err := s.Partitioner()
	if err != nil {
		return PartitionLoad{}, err
	}
	return PredictLoad(ks, dist, p, n), nil
}

// PredictMovement is what growing the topic from `from` to `to`
// partitions does to the workload's keys under its partitioner.
func (s *Spec) PredictMovement(from, to int32) (Movement, error) {
	ks, dist, err := s.Keyspace()
	if err != nil {
		return Movement{}, err
	}
	p, err := s.Partitioner()
	if err != nil {
		return Movement{}, err
	}
	return PredictMovement(ks, dist, p, from, to), nil
}
