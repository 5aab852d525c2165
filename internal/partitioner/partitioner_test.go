package partitioner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Known values of Kafka's murmur2, from Kafka's UtilsTest.
var murmur2Known = []struct {
	key  string
	want int32
}{
	{"21", -973932308},
	{"foobar", -790332482},
	{"a-little-bit-long-string", -985981536},
	{"a-little-bit-longer-string", -1486304829},
	{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
	{"abc", 479470107},
}

func TestMurmur2KnownValues(t *testing.T) {
	for _, c := range murmur2Known {
		if got := Murmur2([]byte(c.key)); got != c.want {
			t.Errorf("Murmur2(%q) = %d, want %d", c.key, got, c.want)
		}
	}
}

// randomKeys returns n keys of random bytes and lengths 0..40, and some
// formatted ones, seeded.
func randomKeys(seed uint64, n int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	keys := make([][]byte, 0, n)
	for i := 0; i < n/2; i++ {
		k := make([]byte, r.IntN(41))
		for j := range k {
			k[j] = byte(r.Uint32())
		}
		keys = append(keys, k)
	}
	for len(keys) < n {
		keys = append(keys, fmt.Appendf(nil, "k%06d", r.IntN(1_000_000)))
	}
	return keys
}

// franz-go's StickyKeyPartitioner with its default hasher is its own
// implementation of Java's partitioner for keyed records: ours must agree
// with it on every key.
func TestMurmur2AgreesWithFranzGo(t *testing.T) {
	tp := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	for i, k := range randomKeys(7, 20000) {
		if len(k) == 0 {
			continue // franz-go treats an empty key like a null one (sticky)
		}
		n := int32(1 + i%64)
		want := int32(tp.Partition(&kgo.Record{Key: k}, int(n)))
		if got := Murmur2Partitioner.Partition(k, n); got != want {
			t.Fatalf("key %x, %d partitions: ours %d, franz-go %d", k, n, got, want)
		}
	}
}

// librdkafka's rd_fnv1a unit-test vectors.
func TestFNV1aKnownValues(t *testing.T) {
	for _, c := range []struct {
		key  string
		want uint32
	}{
		{"kafka", 0xd33c4e1},
		{"giberish123456789", 0x77a58295},
		{"1234", 0x23bdd03},
		{"234", 0x2dea3cd2},
		{"34", 0x740fa83e},
		{"4", 0x310ca263},
		{"PreAmbleWillBeRemoved,ThePrePartThatIs", 0x65cbd69c},
		{"reAmbleWillBeRemoved,ThePrePartThatIs", 0x6e49c79a},
		{"", 0x7ee3623b},
	} {
		if got := FNV1a([]byte(c.key)); got != c.want {
			t.Errorf("FNV1a(%q) = %#x, want %#x", c.key, got, c.want)
		}
	}
}

func TestConsistentIsCRC32(t *testing.T) {
	// The CRC-32 check value: crc32("123456789") = 0xcbf43926.
	const check = 0xcbf43926
	for _, n := range []int32{1, 7, 12, 1000} {
		if got, want := ConsistentPartitioner.Partition([]byte("123456789"), n), int32(check%uint32(n)); got != want {
			t.Errorf("%d partitions: %d, want %d", n, got, want)
		}
	}
}

func TestPartitionInRange(t *testing.T) {
	keys := randomKeys(3, 5000)
	for _, name := range Names() {
		p, _ := New(name)
		for i, k := range keys {
			n := int32(1 + i%200)
			if got := p.Partition(k, n); got < 0 || got >= n {
				t.Fatalf("%s: key %x, %d partitions: %d out of range", name, k, n, got)
			}
		}
	}
}

// Every partitioner spreads distinct keys evenly: a chi-square test of
// 60,000 keys over 12 partitions (11 degrees of freedom; 40 is far beyond
// the 0.9999 quantile, 35.4).
func TestPartitionersSpreadKeys(t *testing.T) {
	const n, keys = 12, 60000
	for _, name := range Names() {
		p, _ := New(name)
		var counts [n]int
		for i := 0; i < keys; i++ {
			counts[p.Partition(fmt.Appendf(nil, "k%06d", i), n)]++
		}
		exp := float64(keys) / n
		chi2 := 0.0
		for _, c := range counts {
			chi2 += (float64(c) - exp) * (float64(c) - exp) / exp
		}
		if chi2 > 40 {
			t.Errorf("%s: chi-square %.1f over 12 partitions (counts %v)", name, chi2, counts)
		}
	}
}

// Jump moves a key only to a new partition, and about (P'-P)/P' of them.
func TestJumpMovesFewKeys(t *testing.T) {
	keys := make([][]byte, 50000)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "k%06d", i)
	}
	for _, c := range []struct{ from, to int32 }{{12, 13}, {12, 24}, {6, 8}, {1, 2}, {100, 101}} {
		moved := 0
		for _, k := range keys {
			a, b := JumpPartitioner.Partition(k, c.from), JumpPartitioner.Partition(k, c.to)
			if a != b {
				moved++
				if b < c.from {
					t.Fatalf("%d->%d: key %s moved from %d to old partition %d", c.from, c.to, k, a, b)
				}
			}
		}
		got := float64(moved) / float64(len(keys))
		want := float64(c.to-c.from) / float64(c.to)
		if math.Abs(got-want) > 0.01 {
			t.Errorf("%d->%d: moved %.4f of keys, want %.4f +- 0.01", c.from, c.to, got, want)
		}
		if got2 := Moved(JumpPartitioner, keys, c.from, c.to); got2 != moved {
			t.Errorf("Moved = %d, want %d", got2, moved)
		}
	}
	// A modulo hash moves most keys from 12 to 13 partitions: 12/13 of them.
	if m := float64(Moved(Murmur2Partitioner, keys, 12, 13)) / float64(len(keys)); math.Abs(m-12.0/13) > 0.01 {
		t.Errorf("murmur2 12->13 moved %.3f, want about %.3f", m, 12.0/13)
	}
}

func TestNew(t *testing.T) {
	for alias, canon := range map[string]string{"murmur2_random": "murmur2", "consistent_random": "consistent", "fnv1a_random": "fnv1a", "jump": "jump"} {
		p, err := New(alias)
		if err != nil || p.Name() != canon {
			t.Errorf("New(%q) = %v, %v; want %s", alias, p, err, canon)
		}
	}
	if _, err := New("random"); err == nil || !strings.Contains(err.Error(), "murmur2") {
		t.Errorf("New(random): %v, want an error listing the names", err)
	}
}

func BenchmarkPartition(b *testing.B) {
	key := []byte("k000123")
	for _, name := range Names() {
		p, _ := New(name)
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p.Partition(key, 12)
			}
		})
	}
}
