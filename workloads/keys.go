package workloads

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/clip"

	"github.com/chaosbench/chaosbench/internal/keygen"
	"github.com/chaosbench/chaosbench/internal/partitioner"
)

// Keyspace returns the workload's keys (explicit keys first, then the
// formatted ones) and the distribution of traffic over them. Draw from it
// with keygen.NewGenerator(dist, s.Rand("keys")): that is the producer's
// key stream.
func (s *Spec) Keyspace() (*keygen.Keyspace, keygen.Distribution, error) {
	k := s.Keys
	format, err := keygen.ParseFormat(k.Format)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: keys.format: %s: %w", s.File, clip.Quote(k.Format), err)
	}
	ks := &keygen.Keyspace{Format: format, Count: k.Count}
	var dist keygen.Distribution
	switch k.Distribution {
	case DistUniform:
		dist, err = keygen.Uniform(k.Count)
	case DistZipf:
		dist, err = keygen.Zipf(k.Count, k.Zipf.Exponent)
	case DistHotspot:
		dist, err = keygen.Hotspot(k.Count, k.Hotspot.HotKeys, k.Hotspot.Share)
	case DistExplicit:
		shares := make([]float64, len(k.Explicit))
		for i, e := range k.Explicit {
			ks.Named = append(ks.Named, e.Key)
			shares[i] = e.Share
		}
		dist, err = keygen.Explicit(shares, k.Count)
	default:
		err = fmt.Errorf("unknown distribution %s", clip.Quote(k.Distribution))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: keys: %w", s.File, err)
	}
	return ks, dist, nil
}

// KeyStream returns the workload's key generator: the same (key, seq)
// stream on every call.
func (s *Spec) KeyStream() (*keygen.Keyspace, *keygen.Generator, error) {
	ks, dist, err := s.Keyspace()
	if err != nil {
		return nil, nil, err
	}
	return ks, keygen.NewGenerator(dist, s.Rand("keys")), nil
}

// Partitioner returns producer.partitioner.
func (s *Spec) Partitioner() (partitioner.Partitioner, error) {
	return partitioner.New(s.Producer.Partitioner)
}
