package check

import (
	"fmt"
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

// TestSyntheticNetworkBlips: members cut off for less than the takeover
// (the group keeps them) are followed and never found evicted or
// zombies; their partitions wait for the heal; every other count is the
// simulation's, kills around them included.
func TestSyntheticNetworkBlips(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	for i := range 20 {
		cfg := randomConfig(rng, int64(200+i))
		dur := time.Duration(float64(cfg.Records) / cfg.Rate * float64(time.Second))
		// Up to two cuts on distinct members, shorter than the takeover,
		// away from every kill's window (a rebalance would move what the
		// cut member owns: an eviction of another cause).
		for try := 0; try < 20 && len(cfg.Cuts) < 2; try++ {
			c := synth.Cut{At: dur/8 + time.Duration(rng.Int63n(int64(dur/2))), Member: rng.Intn(cfg.Members),
				Duration: cfg.Takeover / time.Duration(2+rng.Intn(3))}
			ok := true
			for _, k := range cfg.Kills {
				if k.Member == c.Member || c.At+c.Duration+time.Second > k.At && k.At+cfg.Takeover+time.Second > c.At {
					ok = false
				}
			}
			for _, o := range cfg.Cuts {
				if o.Member == c.Member {
					ok = false
				}
			}
			if ok {
				cfg.Cuts = append(cfg.Cuts, c)
			}
		}
		dir := filepath.Join(t.TempDir(), "cell")
		exp, err := synth.Write(dir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := AnalyzeCell(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Verdict != summary.Valid || s.Duplicates.Count != exp.Duplicates || s.History.Events != exp.Events || s.Overlap.Events != 0 {
			t.Errorf("seed %d: verdict %s %v, duplicates %d (made %d), events %d (wrote %d), overlap %d",
				cfg.Seed, s.Verdict, s.VerdictReasons, s.Duplicates.Count, exp.Duplicates, s.History.Events, exp.Events, s.Overlap.Events)
		}
		if len(s.Network.Steps) != exp.NetworkSteps {
			t.Fatalf("seed %d: %d network steps followed, %d made", cfg.Seed, len(s.Network.Steps), exp.NetworkSteps)
		}
		for _, st := range s.Network.Steps {
			if st.EvictedT != 0 || st.LearnedT != 0 || st.ZombieRecords != 0 || st.HealT == 0 {
				t.Errorf("seed %d: a blip shorter than the takeover followed as %+v", cfg.Seed, st)
			}
		}
		chaos, cuts := 0, 0
		for _, d := range s.Disruptions {
			if d.Cause == "chaos" {
				chaos++
			}
			if d.Action == "disconnect" {
				cuts++
				// (A step on a member that owned nothing has no window of
				// its own: its moves are counted to the end.)
				if d.Partitions > 0 && d.Moved != 0 {
					t.Errorf("seed %d: a blip moved %d partitions", cfg.Seed, d.Moved)
				}
			}
		}
		if chaos != len(cfg.Kills)+len(cfg.Cuts) || cuts != len(cfg.Cuts) {
			t.Errorf("seed %d: %d chaos disruptions (%d cuts), want %d kills and %d cuts", cfg.Seed, chaos, cuts, len(cfg.Kills), len(cfg.Cuts))
		}
		// A cut member's partitions that had records waiting pause at
		// least until the heal.
		for _, pp := range s.Pause.Pauses {
			for _, d := range s.Disruptions {
				if d.ID == pp.Disruption && d.Action == "disconnect" && pp.From == pp.To && pp.Ms > 0 {
					var ms int64
					for _, c := range cfg.Cuts {
						if fmt.Sprintf("m%d.0", c.Member+1) == pp.From {
							ms = c.Duration.Milliseconds()
						}
					}
					if pp.Ms < float64(ms) {
						t.Errorf("seed %d: %s's partition %d paused %.0f ms through a cut of %d ms", cfg.Seed, pp.From, pp.Partition, pp.Ms, ms)
					}
				}
			}
		}
		t.Logf("seed %d: %d kills, %d cuts, %d network steps followed", cfg.Seed, len(cfg.Kills), len(cfg.Cuts), len(s.Network.Steps))
	}
}
