// Package partitioner maps record keys to partitions the way Kafka clients
// do, so that chaosbench can choose every record's partition itself and get
// the same answer whichever client library sends it.
//
//	murmur2     Java's default partitioner (and librdkafka's murmur2_random
//	            for non-empty keys): positive murmur2 of the key bytes
//	            modulo the partition count.
//	consistent  librdkafka's default (consistent_random for non-empty keys):
//	            CRC-32 (IEEE) of the key modulo the partition count.
//	fnv1a       librdkafka's fnv1a (Sarama's default hash partitioner):
//	            absolute value of the 32-bit FNV-1a hash modulo the count.
//	jump        Lamping and Veach's jump consistent hash of the key's 64-bit
//	            FNV-1a hash: growing from P to P' partitions moves only
//	            (P'-P)/P' of the keys, all of them to the new partitions.
//
// The first three are modulo hashes: adding partitions moves most keys.
package partitioner

import (
	"fmt"
	"hash/crc32"
	"sort"
	"strings"
)

// Partitioner maps a key to one of n partitions, n >= 1. It is a pure
// function of the key bytes and n, safe for concurrent use.
type Partitioner interface {
	// Name is the partitioner's name as workload files spell it.
	Name() string
	// Partition returns the key's partition in [0, n).
	Partition(key []byte, n int32) int32
}

// Func adapts a function to a Partitioner.
type Func struct {
	name string
	fn   func(key []byte, n int32) int32
}

// Name implements Partitioner.
func (f Func) Name() string { return f.name }

// Partition implements Partitioner.
func (f Func) Partition(key []byte, n int32) int32 { return f.fn(key, n) }

// The partitioners.
var (
	Murmur2Partitioner    Partitioner = Func{"murmur2", murmur2Partition}
	ConsistentPartitioner Partitioner = Func{"consistent", consistentPartition}
	FNV1aPartitioner      Partitioner = Func{"fnv1a", fnv1aPartition}
	JumpPartitioner       Partitioner = Func{"jump", jumpPartition}
)

var byName = map[string]Partitioner{
	"murmur2":    Murmur2Partitioner,
	"consistent": ConsistentPartitioner,
	"fnv1a":      FNV1aPartitioner,
	"jump":       JumpPartitioner,
}

// aliases are librdkafka's names of the same functions: the *_random
// variants differ only for empty and null keys, which chaosbench never
// sends.
var aliases = map[string]string{
	"murmur2_random":    "murmur2",
	"consistent_random": "consistent",
	"fnv1a_random":      "fnv1a",
}

// Names lists the partitioners, sorted.
func Names() []string {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns the partitioner called name: one of Names(), or one of
// librdkafka's names for the same function (murmur2_random,
// consistent_random, fnv1a_random).
func New(name string) (Partitioner, error) {
	if p, ok := byName[name]; ok {
		return p, nil
	}
	if canon, ok := aliases[name]; ok {
		return byName[canon], nil
	}
	return nil, fmt.Errorf("unknown partitioner %q: expected %s", name, strings.Join(Names(), ", "))
}

// Murmur2 is Kafka's murmur2 hash (org.apache.kafka.common.utils.Utils.murmur2):
// MurmurHash2, 32 bits, seed 0x9747b28c, with Java's signed result.
func Murmur2(data []byte) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch n - i {
	case 3:
		h ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// toPositive is Kafka's Utils.toPositive: the sign bit cleared (not the
// absolute value: toPositive(-1) is 2147483647).
func toPositive(x int32) int32 { return x & 0x7fffffff }

func murmur2Partition(key []byte, n int32) int32 {
	return toPositive(Murmur2(key)) % n
}

func consistentPartition(key []byte, n int32) int32 {
	return int32(crc32.ChecksumIEEE(key) % uint32(n))
}

// FNV1a is librdkafka's rd_fnv1a: the 32-bit FNV-1a hash read as a signed
// integer and made non-negative by negation (math.MinInt32 stays as it is,
// read back as 2^31), as Sarama's hash partitioner does.
func FNV1a(data []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range data {
		h ^= uint32(c)
		h *= 16777619
	}
	if int32(h) < 0 {
		h = uint32(-int32(h))
	}
	return h
}

func fnv1aPartition(key []byte, n int32) int32 {
	return int32(FNV1a(key) % uint32(n))
}

// fnv1a64 is the 64-bit FNV-1a hash, the input of jump.
func fnv1a64(data []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range data {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// Jump is the jump consistent hash of Lamping and Veach ("A Fast, Minimal
// Memory, Consistent Hash Algorithm", 2014): a bucket in [0, n) for key,
// such that going from n to n+1 buckets moves a key only to bucket n, and
// only with probability 1/(n+1).
func Jump(key uint64, n int32) int32 {
	// The walk visits the buckets at which the key would jump as the
	// bucket count grows; each jump point is drawn from a 64-bit LCG
	// seeded with the key, so the walk is O(log n).
	b, j := int64(-1), int64(0)
	for j < int64(n) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int32(b)
}

func jumpPartition(key []byte, n int32) int32 {
	return Jump(fnv1a64(key), n)
}

// Moved counts the keys whose partition differs between from and to
// partitions.
func Moved(p Partitioner, keys [][]byte, from, to int32) int {
	moved := 0
	for _, k := range keys {
		if p.Partition(k, from) != p.Partition(k, to) {
			moved++
		}
	}
	return moved
}
