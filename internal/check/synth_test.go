package check

import (
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/chaosbench/chaosbench/internal/check/synth"
	"github.com/chaosbench/chaosbench/internal/summary"
)

// randomConfig draws a synthetic cell: 1-12 partitions, 1-5 members, up to
// two kills that leave a survivor.
func randomConfig(rng *rand.Rand, seed int64) synth.Config {
	cfg := synth.Config{
		Seed:        seed,
		Partitions:  1 + rng.Intn(12),
		Members:     1 + rng.Intn(5),
		Keys:        1 + rng.Intn(50),
		Records:     1000 + rng.Intn(3000),
		Rate:        float64(200 + rng.Intn(800)),
		Latency:     time.Duration(1+rng.Intn(20)) * time.Millisecond,
		CommitEvery: time.Duration(200+rng.Intn(800)) * time.Millisecond,
		Takeover:    time.Duration(500+rng.Intn(3000)) * time.Millisecond,
	}
	dur := time.Duration(float64(cfg.Records) / cfg.Rate * float64(time.Second))
	kills := rng.Intn(3)
	used := map[int]bool{}
	for i := 0; i < kills && len(used) < cfg.Members-1; i++ {
		m := rng.Intn(cfg.Members)
		if used[m] {
			continue
		}
		used[m] = true
		cfg.Kills = append(cfg.Kills, synth.Kill{At: time.Duration(rng.Int63n(int64(dur*3/4))) + dur/8, Member: m})
	}
	return cfg
}

// TestSyntheticClean: on clean simulated histories (kills and handovers
// from the last commit, nothing else), every check is valid, no finding
// says otherwise, and the duplicates are exactly the redeliveries the
// simulation made.
func TestSyntheticClean(t *testing.T) {
	rng := rand.New(rand.NewSource(20260101))
	for i := range 25 {
		cfg := randomConfig(rng, int64(i+1))
		dir := filepath.Join(t.TempDir(), "cell")
		exp, err := synth.Write(dir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := AnalyzeCell(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Verdict != summary.Valid {
			t.Errorf("seed %d (%+v): verdict %s: %v", cfg.Seed, cfg, s.Verdict, s.VerdictReasons)
		}
		for _, f := range s.Findings {
			if f.Verdict != summary.Valid || f.Kind == "zombie_processing" || f.Kind == "unowned_processing" {
				t.Errorf("seed %d: finding %s/%s (%s): %s", cfg.Seed, f.Checker, f.Kind, f.Verdict, f.Message)
			}
		}
		if s.Duplicates.Count != exp.Duplicates {
			t.Errorf("seed %d: duplicates %d, the simulation made %d", cfg.Seed, s.Duplicates.Count, exp.Duplicates)
		}
		if s.Duplicates.BeyondUncommitted != 0 || s.Duplicates.Unattributed != 0 {
			t.Errorf("seed %d: %d handovers beyond the uncommitted window, %d unattributed duplicates", cfg.Seed, s.Duplicates.BeyondUncommitted, s.Duplicates.Unattributed)
		}
		if s.Loss.Lost != 0 || s.Ordering.Reorders != 0 || s.Ordering.ProducerDuplicates != 0 || s.Overlap.Events != 0 {
			t.Errorf("seed %d: lost %d, reorders %d, producer duplicates %d, overlap %d on a clean history",
				cfg.Seed, s.Loss.Lost, s.Ordering.Reorders, s.Ordering.ProducerDuplicates, s.Overlap.Events)
		}
		if s.Loss.Acknowledged != exp.Acked || s.History.Events != exp.Events {
			t.Errorf("seed %d: %d acknowledged, %d events; the simulation wrote %d, %d", cfg.Seed, s.Loss.Acknowledged, s.History.Events, exp.Acked, exp.Events)
		}
		chaos := 0
		for _, d := range s.Disruptions {
			if d.Cause == "chaos" {
				chaos++
			}
			if d.Unfinished {
				t.Errorf("seed %d: disruption %d never ended", cfg.Seed, d.ID)
			}
		}
		if chaos != len(cfg.Kills) {
			t.Errorf("seed %d: %d chaos disruptions, %d kills", cfg.Seed, chaos, len(cfg.Kills))
		}
	}
}

// TestSyntheticInjected: injected anomalies are counted exactly, whatever
// the kills around them.
func TestSyntheticInjected(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := range 20 {
		cfg := randomConfig(rng, int64(100+i))
		cfg.Lost, cfg.Reorders, cfg.ProducerDups = rng.Intn(6), rng.Intn(6), rng.Intn(6)
		dir := filepath.Join(t.TempDir(), "cell")
		exp, err := synth.Write(dir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := AnalyzeCell(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Loss.Lost != exp.Lost || s.Ordering.SamePartition != exp.Reorders || s.Ordering.ProducerDuplicates != exp.ProducerDups || s.Duplicates.Count != exp.Duplicates {
			t.Errorf("seed %d: lost %d/%d, reorders %d/%d, producer duplicates %d/%d, duplicates %d/%d (found/injected)",
				cfg.Seed, s.Loss.Lost, exp.Lost, s.Ordering.SamePartition, exp.Reorders,
				s.Ordering.ProducerDuplicates, exp.ProducerDups, s.Duplicates.Count, exp.Duplicates)
		}
		want := summary.Valid
		if exp.Lost > 0 || exp.Reorders > 0 || exp.ProducerDups > 0 {
			want = summary.Invalid
		}
		if s.Verdict != want {
			t.Errorf("seed %d: verdict %s, want %s: %v", cfg.Seed, s.Verdict, want, s.VerdictReasons)
		}
	}
}
