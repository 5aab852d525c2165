package loadgen

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkatest"
	"github.com/chaosbench/chaosbench/workloads"
)

// The round trip: a topic produced from a known key distribution, sampled
// by loadgen sample and fitted, gives back its top keys' shares within one
// percentage point and its partition skew (the hottest partition's share)
// within 5%; whether the sample is the whole topic or a third of it. The
// sampler joins no group and commits nothing.
func TestSampleRoundTrip(t *testing.T) {
	c := kafkatest.Shared(t)
	s := spec(t, `records: 60000
topic: {partitions: 12}
keys:
  count: 3000
  format: "user-%05d"
  distribution: zipf
  zipf: {exponent: 1.0}
producer: {rate: unlimited}
`)
	topic := kafkatest.Name(t, "sample")
	if res, _, _ := run(t, c, s, topic, nil); res.Acked != 60000 {
		t.Fatalf("acknowledged %d of 60000", res.Acked)
	}
	adm, err := cluster.NewAdmin(c.Bootstrap(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	groups := func() int {
		gs, err := adm.ListGroups(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(gs)
	}
	before := groups()
	ks, dist, err := s.Keyspace()
	if err != nil {
		t.Fatal(err)
	}
	for _, records := range []int64{100_000, 20_000} {
		sample, err := Sample(ctx, SampleConfig{Bootstrap: c.Bootstrap(), Topic: topic, Records: records, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(records, 60000); sample.Records < want-12 || sample.Records > want+12 {
			t.Errorf("--records %d: read %d", records, sample.Records)
		}
		fit, err := workloads.FitKeys(sample, workloads.FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if fit.Partitioner != "murmur2" || fit.Matched != 1 {
			t.Errorf("partitioner %s matching %.3f of the keys, want murmur2 for all", fit.Partitioner, fit.Matched)
		}
		shares := map[string]float64{}
		for _, e := range fit.Keys.Explicit {
			shares[e.Key] = e.Share
		}
		buf := make([]byte, 0, 16)
		worst := 0.0
		for i := range 10 {
			key := string(ks.Append(buf[:0], i))
			got, want := shares[key], dist.Prob(i)
			if math.Abs(got-want) > 0.01 {
				t.Errorf("--records %d: key %s: share %.4f, produced from %.4f", records, key, got, want)
			}
			worst = math.Max(worst, math.Abs(got-want))
		}
		if rel := math.Abs(fit.PredictedHottest-fit.TopicHottest) / fit.TopicHottest; rel > 0.05 || fit.PredictedPartition != fit.TopicPartition {
			t.Errorf("--records %d: the keys give partition %d %.4f, the topic's hottest is %d with %.4f (%.1f%% off)",
				records, fit.PredictedPartition, fit.PredictedHottest, fit.TopicPartition, fit.TopicHottest, 100*rel)
		}
		t.Logf("--records %d: %d read, %d keys named (%.1f%%), top 10 keys' shares within %.2f points, hottest partition %d: topic %.4f, fitted %.4f (%.1f%% off)",
			records, sample.Records, fit.Named, 100*fit.NamedShare, 100*worst, fit.TopicPartition, fit.TopicHottest, fit.PredictedHottest,
			100*math.Abs(fit.PredictedHottest-fit.TopicHottest)/fit.TopicHottest)
	}
	if after := groups(); after != before {
		t.Errorf("consumer groups: %d before sampling, %d after: the sampler must join none", before, after)
	}
}
