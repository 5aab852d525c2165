package keygen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Distribution draws key indexes in [0, Len()). Index 0 is the most
// frequent key of skewed distributions (zipf rank 1, the first hot key, the
// first explicit key).
type Distribution interface {
	// Len returns the number of keys.
	Len() int
	// Pick draws a key index using r.
	Pick(r *rand.Rand) int
	// Prob returns the exact probability that Pick returns i.
	Prob(i int) float64
	// String describes the distribution, e.g. "zipf(1000 keys, exponent 1.1)".
	String() string
}

// Uniform returns a distribution choosing each of n keys with probability 1/n.
func Uniform(n int) (Distribution, error) {
	if n < 1 {
		return nil, fmt.Errorf("uniform: %d keys: expected at least 1", n)
	}
	return uniform(n), nil
}

type uniform int

func (u uniform) Len() int              { return int(u) }
func (u uniform) Pick(r *rand.Rand) int { return r.IntN(int(u)) }
func (u uniform) Prob(i int) float64    { return 1 / float64(u) }
func (u uniform) String() string        { return fmt.Sprintf("uniform(%d keys)", int(u)) }

// Zipf returns the zipfian distribution over n keys: key i (rank i+1) has
// probability proportional to 1/(i+1)^exponent. Any exponent > 0 is
// allowed (the distribution is finite, so exponents at or below 1 are
// well defined, as in YCSB's 0.99). Sampling is exact and O(1), with
// Walker's alias method over a table of n entries.
func Zipf(n int, exponent float64) (Distribution, error) {
	if n < 1 {
		return nil, fmt.Errorf("zipf: %d keys: expected at least 1", n)
	}
	if !(exponent > 0) || math.IsInf(exponent, 0) {
		return nil, fmt.Errorf("zipf: exponent %v: expected a number > 0", exponent)
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(float64(i+1), -exponent)
	}
	return &zipf{alias: newAlias(w), exponent: exponent}, nil
}

type zipf struct {
	alias    *alias
	exponent float64
}

func (z *zipf) Len() int              { return len(z.alias.prob) }
func (z *zipf) Pick(r *rand.Rand) int { return z.alias.pick(r) }
func (z *zipf) Prob(i int) float64    { return z.alias.p[i] }
func (z *zipf) String() string {
	return fmt.Sprintf("zipf(%d keys, exponent %g)", z.Len(), z.exponent)
}

// Hotspot returns go-ycsb's hotspot distribution in the form "share s of
// the traffic goes to h hot keys": keys [0, hot) share s uniformly, the
// other n-hot keys share 1-s uniformly.
func Hotspot(n, hot int, share float64) (Distribution, error) {
	switch {
	case n < 2:
		return nil, fmt.Errorf("hotspot: %d keys: expected at least 2", n)
	case hot < 1 || hot >= n:
		return nil, fmt.Errorf("hotspot: %d hot keys of %d: expected 1 to %d", hot, n, n-1)
	case !(share > 0 && share < 1):
		return nil, fmt.Errorf("hotspot: share %v: expected a fraction strictly between 0 and 1", share)
	}
	return &hotspot{n: n, hot: hot, share: share}, nil
}

type hotspot struct {
	n, hot int
	share  float64
}

func (h *hotspot) Len() int { return h.n }
func (h *hotspot) Pick(r *rand.Rand) int {
	if r.Float64() < h.share {
		return r.IntN(h.hot)
	}
	return h.hot + r.IntN(h.n-h.hot)
}
func (h *hotspot) Prob(i int) float64 {
	if i < h.hot {
		return h.share / float64(h.hot)
	}
	return (1 - h.share) / float64(h.n-h.hot)
}
func (h *hotspot) String() string {
	return fmt.Sprintf("hotspot(%g of traffic to %d of %d keys)", h.share, h.hot, h.n)
}

// Explicit returns a distribution in which key i < len(shares) has
// probability shares[i], and the remaining 1 - sum(shares) is spread
// uniformly over the next rest keys. The shares must be positive and sum
// to at most 1; if they sum to less than 1, rest must be at least 1.
func Explicit(shares []float64, rest int) (Distribution, error) {
	if len(shares) == 0 {
		return nil, errors.New("explicit: no keys: expected at least one key with its share")
	}
	if rest < 0 {
		return nil, fmt.Errorf("explicit: %d other keys: expected at least 0", rest)
	}
	sum := 0.0
	for i, s := range shares {
		if !(s > 0 && s <= 1) {
			return nil, fmt.Errorf("explicit: share %v of key %d: expected a fraction > 0 and <= 1", s, i)
		}
		sum += s
	}
	const eps = 1e-9
	if sum > 1+eps {
		return nil, fmt.Errorf("explicit: the shares sum to %v: expected at most 1", sum)
	}
	remaining := math.Max(0, 1-sum)
	if remaining > eps && rest == 0 {
		return nil, fmt.Errorf("explicit: the shares sum to %v and there are no other keys to take the remaining %v", sum, remaining)
	}
	if remaining <= eps {
		remaining = 0
	}
	w := append(append([]float64(nil), shares...), remaining)
	return &explicit{alias: newAlias(w), named: len(shares), rest: rest, remaining: remaining}, nil
}

type explicit struct {
	alias     *alias
	named     int
	rest      int
	remaining float64
}

func (e *explicit) Len() int { return e.named + e.rest }
func (e *explicit) Pick(r *rand.Rand) int {
	i := e.alias.pick(r)
	if i < e.named {
		return i
	}
	return e.named + r.IntN(e.rest)
}
func (e *explicit) Prob(i int) float64 {
	if i < e.named {
		return e.alias.p[i]
	}
	return e.remaining / float64(e.rest)
}
func (e *explicit) String() string {
	return fmt.Sprintf("explicit(%d named keys, %g of traffic over %d other keys)", e.named, e.remaining, e.rest)
}

// alias is Walker's alias table (Vose's construction): Pick draws a column
// uniformly, then keeps it with probability prob[i] or takes its alias.
type alias struct {
	prob  []float64
	alias []int32
	p     []float64 // the normalized weights, for Prob
}

func newAlias(w []float64) *alias {
	n := len(w)
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	a := &alias{prob: make([]float64, n), alias: make([]int32, n), p: make([]float64, n)}
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range w {
		a.p[i] = x / sum
		scaled[i] = a.p[i] * float64(n)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s] = scaled[s]
		a.alias[s] = l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left is 1 up to rounding.
	for _, i := range large {
		a.prob[i] = 1
		a.alias[i] = i
	}
	for _, i := range small {
		a.prob[i] = 1
		a.alias[i] = i
	}
	return a
}

func (a *alias) pick(r *rand.Rand) int {
	i := r.IntN(len(a.prob))
	if r.Float64() < a.prob[i] {
		return i
	}
	return int(a.alias[i])
}
