package workloads

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chaosbench/chaosbench/internal/partitioner"
)

// sampleOf draws n records of a workload's keys as a producer with its
// partitioner would write them to p partitions: a KeySample as loadgen
// sample would read it (the window is the records per partition).
func sampleOf(t *testing.T, src string, n int, p int32) (*KeySample, *Spec) {
	t.Helper()
	s, err := Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ks, gen, err := s.KeyStream()
	if err != nil {
		t.Fatal(err)
	}
	part, _ := s.Partitioner()
	ks2 := &KeySample{Topic: "t", Partitions: int(p), Window: make([]int64, p), Keys: map[string]int64{}, KeyPartition: map[string]int32{}}
	buf := make([]byte, 0, 32)
	for range n {
		i, _ := gen.Next()
		buf = ks.Append(buf[:0], i)
		pp := part.Partition(buf, p)
		ks2.Window[pp]++
		ks2.Keys[string(buf)]++
		ks2.KeyPartition[string(buf)] = pp
		ks2.Records++
	}
	return ks2, s
}

// The round trip without a broker: a sample of a known distribution gives
// back its top keys' shares within a percentage point and its partition
// skew within 5%, and the keys section loads as a workload.
func TestFitKeys(t *testing.T) {
	for name, src := range map[string]string{
		"zipf":    "duration: 1m\nkeys: {count: 2000, format: \"user-%05d\", distribution: zipf, zipf: {exponent: 1.1}}\n",
		"tenants": "duration: 1m\nkeys: {count: 5000, distribution: explicit, explicit: [{key: tenant-a, share: 0.3}, {key: tenant-b, share: 0.1}]}\n",
		"uniform": "duration: 1m\nkeys: {count: 300, distribution: uniform}\n",
		"hotspot": "duration: 1m\nkeys: {count: 1000, distribution: hotspot, hotspot: {share: 0.6, hot_keys: 5}}\n",
	} {
		t.Run(name, func(t *testing.T) {
			sample, s := sampleOf(t, src, 100_000, 12)
			fit, err := FitKeys(sample, FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fit.Partitioner != "murmur2" || fit.Matched != 1 {
				t.Errorf("partitioner %s matching %v, want murmur2 for every key", fit.Partitioner, fit.Matched)
			}
			ks, dist, _ := s.Keyspace()
			shares := map[string]float64{}
			for _, e := range fit.Keys.Explicit {
				shares[e.Key] = e.Share
			}
			buf := make([]byte, 0, 32)
			for i := 0; i < min(10, ks.Len()); i++ {
				key := string(ks.Append(buf[:0], i))
				got, ok := shares[key]
				if !ok && fit.Keys.Distribution == DistUniform {
					got = 1 / float64(fit.Keys.Count)
				}
				if math.Abs(got-dist.Prob(i)) > 0.01 {
					t.Errorf("key %s: share %.4f, true %.4f", key, got, dist.Prob(i))
				}
			}
			truth := PredictLoad(ks, dist, partitioner.Murmur2Partitioner, 12)
			_, th := truth.Hottest()
			if rel := math.Abs(fit.PredictedHottest-th) / th; rel > 0.05 {
				t.Errorf("hottest partition: fitted %.4f, true %.4f (%.1f%% off)", fit.PredictedHottest, th, 100*rel)
			}
			if rel := math.Abs(fit.PredictedHottest-fit.TopicHottest) / fit.TopicHottest; rel > 0.05 {
				t.Errorf("hottest partition: fitted %.4f, sampled topic %.4f", fit.PredictedHottest, fit.TopicHottest)
			}
			y := fit.YAML([]string{"sampled by a test"})
			if _, err := Parse("fit.yaml", append([]byte("duration: 1m\n"), y...)); err != nil {
				t.Errorf("the keys section does not load: %v\n%s", err, y)
			}
		})
	}
}

// Anonymised names keep every key's partition, so the skew survives; a
// key that is not text is named after its hash whatever was asked.
func TestFitKeysAnonymized(t *testing.T) {
	sample, _ := sampleOf(t, "duration: 1m\nkeys: {count: 500, distribution: explicit, explicit: [{key: acme-corp, share: 0.4}]}\n", 50_000, 6)
	sample.Keys["\xff\xfebinary"] = 900
	sample.KeyPartition["\xff\xfebinary"] = partitioner.Murmur2Partitioner.Partition([]byte("\xff\xfebinary"), 6)
	sample.Records += 900
	for _, how := range []string{"hash", "index"} {
		fit, err := FitKeys(sample, FitOptions{Anonymize: how})
		if err != nil {
			t.Fatal(err)
		}
		y := string(fit.YAML(nil))
		if strings.Contains(y, "acme-corp") || !utf8.ValidString(y) {
			t.Errorf("%s: a key's name survives:\n%s", how, y)
		}
		if math.Abs(fit.PredictedHottest-fit.TopicHottest)/fit.TopicHottest > 0.05 {
			t.Errorf("%s: hottest %.4f, topic %.4f", how, fit.PredictedHottest, fit.TopicHottest)
		}
	}
	fit, err := FitKeys(sample, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if y := string(fit.YAML(nil)); !strings.Contains(y, "acme-corp") || fit.Hashed != 1 || !utf8.ValidString(y) {
		t.Errorf("hashed %d:\n%s", fit.Hashed, y)
	}
	if _, err := FitKeys(&KeySample{Topic: "t", Partitions: 3, Records: 10, Unkeyed: 10}, FitOptions{}); err == nil {
		t.Error("a sample without keys fits")
	}
}
