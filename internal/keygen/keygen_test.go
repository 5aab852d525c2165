package keygen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFormatMatchesSprintf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []string{"k%06d", "k%d", "tenant-%d.orders", "%d", "%08d-x", "a%%b%3d%%", "user:%012d"} {
		f, err := ParseFormat(s)
		if err != nil {
			t.Fatalf("ParseFormat(%q): %v", s, err)
		}
		if f.String() != s {
			t.Errorf("String() = %q, want %q", f.String(), s)
		}
		for _, i := range []int{0, 1, 9, 10, 999999, 1000000, 123456789012} {
			if got, want := f.Key(i), fmt.Sprintf(s, i); got != want {
				t.Errorf("%q, %d: %q, want %q", s, i, got, want)
			}
		}
		for k := 0; k < 1000; k++ {
			i := r.IntN(1 << 40)
			if got, want := f.Key(i), fmt.Sprintf(s, i); got != want {
				t.Fatalf("%q, %d: %q, want %q", s, i, got, want)
			}
		}
	}
}

func TestParseFormatErrors(t *testing.T) {
	for s, want := range map[string]string{
		"key":    "no %d verb",
		"k%s":    "expected one integer verb",
		"k%d-%d": "more than one",
		"k%":     "expected one integer verb",
		"k%-5d":  "expected one integer verb",
		"k%099d": "at most 20",
		"k%x":    "expected one integer verb",
		"%%d":    "no %d verb",
	} {
		_, err := ParseFormat(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFormat(%q) = %v, want an error containing %q", s, err, want)
		}
	}
}

// sample draws n keys and returns their frequencies.
func sample(d Distribution, seed uint64, n int) []float64 {
	r := rand.New(rand.NewPCG(seed, 0))
	counts := make([]float64, d.Len())
	for i := 0; i < n; i++ {
		counts[d.Pick(r)]++
	}
	for i := range counts {
		counts[i] /= float64(n)
	}
	return counts
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func probs(d Distribution) []float64 {
	p := make([]float64, d.Len())
	for i := range p {
		p[i] = d.Prob(i)
	}
	return p
}

// The share of the top keys matches the distribution within a stated
// tolerance: 0.005 with 400,000 draws, more than five standard errors
// (a share's standard error is at most sqrt(0.25/400000) = 0.0008).
const (
	draws     = 400_000
	tolerance = 0.005
)

func TestZipfTopKeysShare(t *testing.T) {
	for _, c := range []struct {
		n int
		s float64
	}{{1000, 1.1}, {1000, 0.99}, {10000, 1.5}, {50, 2}} {
		d, err := Zipf(c.n, c.s)
		if err != nil {
			t.Fatal(err)
		}
		// The exact probabilities, computed independently: 1/k^s / H(n,s).
		h := 0.0
		for k := 1; k <= c.n; k++ {
			h += math.Pow(float64(k), -c.s)
		}
		for i := 0; i < c.n; i++ {
			if want := math.Pow(float64(i+1), -c.s) / h; math.Abs(d.Prob(i)-want) > 1e-12 {
				t.Fatalf("%v: Prob(%d) = %v, want %v", d, i, d.Prob(i), want)
			}
		}
		got := sample(d, 42, draws)
		for _, top := range []int{1, 10, 100} {
			if top > c.n {
				continue
			}
			g, w := sum(got[:top]), sum(probs(d)[:top])
			if math.Abs(g-w) > tolerance {
				t.Errorf("%v: top %d keys got %.4f of draws, want %.4f +- %v", d, top, g, w, tolerance)
			}
		}
		if c.s > 1 && c.n == 1000 && sum(probs(d)[:10]) < 0.45 {
			t.Errorf("%v: top 10 keys have only %.3f of traffic: not skewed", d, sum(probs(d)[:10]))
		}
	}
}

func TestHotspotShare(t *testing.T) {
	d, err := Hotspot(1000, 10, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	got := sample(d, 7, draws)
	if g := sum(got[:10]); math.Abs(g-0.8) > tolerance {
		t.Errorf("hot keys got %.4f of draws, want 0.8 +- %v", g, tolerance)
	}
	// Within the hot set, each key gets 0.08.
	for i := 0; i < 10; i++ {
		if math.Abs(got[i]-0.08) > tolerance {
			t.Errorf("hot key %d got %.4f, want 0.08", i, got[i])
		}
	}
	if p := sum(probs(d)); math.Abs(p-1) > 1e-9 {
		t.Errorf("probabilities sum to %v", p)
	}
}

func TestExplicitShares(t *testing.T) {
	d, err := Explicit([]float64{0.3, 0.1, 0.05}, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := sample(d, 9, draws)
	for i, want := range []float64{0.3, 0.1, 0.05} {
		if math.Abs(got[i]-want) > tolerance {
			t.Errorf("explicit key %d got %.4f, want %v", i, got[i], want)
		}
	}
	if g := sum(got[3:]); math.Abs(g-0.55) > tolerance {
		t.Errorf("other keys got %.4f, want 0.55", g)
	}
	if p := d.Prob(50); math.Abs(p-0.0055) > 1e-12 {
		t.Errorf("Prob(other key) = %v, want 0.0055", p)
	}
	// Shares summing to exactly 1 need no other keys.
	if d, err := Explicit([]float64{0.5, 0.25, 0.25}, 0); err != nil || d.Len() != 3 {
		t.Errorf("shares summing to 1: %v, %v", d, err)
	}
}

func TestUniform(t *testing.T) {
	d, _ := Uniform(20)
	got := sample(d, 3, draws)
	for i, g := range got {
		if math.Abs(g-0.05) > tolerance {
			t.Errorf("key %d got %.4f, want 0.05", i, g)
		}
	}
}

func TestDistributionErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"zipf 0 keys", second(Zipf(0, 1.1))},
		{"zipf exponent 0", second(Zipf(10, 0))},
		{"zipf exponent NaN", second(Zipf(10, math.NaN()))},
		{"hotspot all hot", second(Hotspot(10, 10, 0.5))},
		{"hotspot share 1", second(Hotspot(10, 2, 1))},
		{"explicit over 1", second(Explicit([]float64{0.7, 0.4}, 10))},
		{"explicit no rest", second(Explicit([]float64{0.5}, 0))},
		{"explicit zero share", second(Explicit([]float64{0}, 10))},
		{"uniform 0", second(Uniform(0))},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func second(_ Distribution, err error) error { return err }

// The alias table reproduces arbitrary weights exactly.
func TestAliasTable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 50; trial++ {
		n := 1 + r.IntN(30)
		w := make([]float64, n)
		for i := range w {
			w[i] = r.Float64() * float64(1+r.IntN(100))
		}
		a := newAlias(w)
		// The probability of i is (prob[i] + sum over j aliased to i of (1-prob[j])) / n.
		got := make([]float64, n)
		for i := range a.prob {
			got[i] += a.prob[i] / float64(n)
			if a.alias[i] != int32(i) || a.prob[i] < 1 {
				got[a.alias[i]] += (1 - a.prob[i]) / float64(n)
			}
		}
		total := sum(w)
		for i := range w {
			if math.Abs(got[i]-w[i]/total) > 1e-12 {
				t.Fatalf("trial %d: weight %d: table gives %v, want %v", trial, i, got[i], w[i]/total)
			}
		}
	}
}

// Two generators with the same seed give the same (key, seq) stream, and
// seq numbers each key's records 0, 1, 2, ...
func TestGeneratorDeterministic(t *testing.T) {
	d, _ := Zipf(500, 1.2)
	a := NewGenerator(d, rand.New(rand.NewPCG(42, 0)))
	b := NewGenerator(d, rand.New(rand.NewPCG(42, 0)))
	c := NewGenerator(d, rand.New(rand.NewPCG(43, 0)))
	next := map[int]int64{}
	differ := false
	for i := 0; i < 100000; i++ {
		ka, sa := a.Next()
		kb, sb := b.Next()
		kc, _ := c.Next()
		if ka != kb || sa != sb {
			t.Fatalf("record %d: (%d,%d) vs (%d,%d)", i, ka, sa, kb, sb)
		}
		differ = differ || ka != kc
		if sa != next[ka] {
			t.Fatalf("record %d: key %d seq %d, want %d", i, ka, sa, next[ka])
		}
		next[ka]++
	}
	if !differ {
		t.Error("seeds 42 and 43 gave the same stream")
	}
	if a.Count(0) != next[0] {
		t.Errorf("Count(0) = %d, want %d", a.Count(0), next[0])
	}
}

func BenchmarkPick(b *testing.B) {
	z, _ := Zipf(1_000_000, 1.1)
	h, _ := Hotspot(1_000_000, 100, 0.8)
	u, _ := Uniform(1_000_000)
	for _, d := range []Distribution{z, h, u} {
		b.Run(d.String(), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			for i := 0; i < b.N; i++ {
				d.Pick(r)
			}
		})
	}
}

func BenchmarkFormatAppend(b *testing.B) {
	f, _ := ParseFormat("k%06d")
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = f.Append(buf[:0], i%1000000)
	}
}

func TestFormatIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, s := range []string{"k%06d", "k%d", "x%5d.y", "%d"} {
		f, _ := ParseFormat(s)
		for k := 0; k < 2000; k++ {
			i := r.IntN(10_000_000)
			if got, ok := f.Index(f.Key(i)); !ok || got != i {
				t.Fatalf("%q: Index(Key(%d)) = %d, %v", s, i, got, ok)
			}
		}
	}
	f, _ := ParseFormat("k%06d")
	for _, key := range []string{"k12", "k0000012", "x000012", "k-00001", "k", "k00001a", "tenant-a"} {
		if i, ok := f.Index(key); ok {
			t.Errorf("Index(%q) = %d, want no match", key, i)
		}
	}
}
