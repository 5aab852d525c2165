package workloads

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chaosbench/chaosbench/internal/keygen"
	"github.com/chaosbench/chaosbench/internal/partitioner"
)

// A team's real key distribution is best taken from its topic: `loadgen
// sample` reads a bounded sample of an existing topic's keys (read-only,
// no group) into a KeySample, and FitKeys turns it into the workload's
// keys section that reproduces it: the heaviest keys by name with their
// shares, the rest spread over formatted keys, so that a chaos run or a
// capacity sweep sees the traffic the team's consumers see, and its
// partition skew.

// KeySample is what a sample of a topic's records held.
type KeySample struct {
	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
	// Window is each partition's record count over the sampled window
	// (end offset minus start offset): the topic's own partition skew,
	// exact, whatever was read.
	Window []int64 `json:"window"`
	// Keys counts the sampled records of each key; KeyPartition is the
	// partition each key was seen in (the first, if several).
	Keys         map[string]int64 `json:"-"`
	KeyPartition map[string]int32 `json:"-"`
	// Records counts the records read, Unkeyed those without a key (a
	// workload cannot express them: every record of a workload has a key).
	Records int64 `json:"records"`
	Unkeyed int64 `json:"unkeyed"`
}

// FitOptions shape a fit.
type FitOptions struct {
	// Top bounds the keys named (default 500): the heaviest, each seen at
	// least MinCount times (default 5, below which a share is mostly
	// noise).
	Top, MinCount int
	// Anonymize renames the named keys: "" keeps them; "hash" names each
	// after a hash of it (the same key always gets the same name), "index"
	// after its rank. A new name is chosen to fall in the same partition
	// under the partitioner, so that the partition skew survives.
	Anonymize string
	// Partitioner is the topic's partitioner; "" detects it (the one that
	// puts the most sampled keys where they were seen).
	Partitioner string
}

// keyCount is a key and its records in the sample.
type keyCount struct {
	key string
	n   int64
}

// KeyFit is a fitted keys section and what backs it.
type KeyFit struct {
	Keys Keys
	// Partitioner is the partitioner the fit assumes; Matched the share
	// of sampled keys it puts in the partition they were seen in.
	Partitioner string
	Matched     float64
	// Named counts the named keys and NamedShare their share of the
	// keyed records; Distinct the distinct keys seen, Estimated the
	// distinct keys the traffic is estimated to have (Chao1).
	Named      int
	NamedShare float64
	Distinct   int
	Estimated  int
	// TailExponent is a zipf exponent fitted to the keys not named (their
	// counts against their ranks, least squares on a log-log scale); 0
	// when there are too few of them. The workload spreads that tail
	// evenly: the exponent says how uneven it really is.
	TailExponent float64
	// TopicHottest is the hottest partition's share of the topic's window
	// (measured); PredictedHottest the share the keys section gives it
	// under the partitioner (loadgen plan's prediction).
	TopicHottest, PredictedHottest     float64
	TopicPartition, PredictedPartition int32
	// Records and Unkeyed are the sample's; Partitions the topic's.
	Records, Unkeyed int64
	Partitions       int
	// Hashed counts keys named after their hash because they are not
	// text (not UTF-8).
	Hashed int
}

// FitKeys fits a keys section to a sample.
func FitKeys(s *KeySample, o FitOptions) (*KeyFit, error) {
	if o.Top == 0 {
		o.Top = 500
	}
	if o.MinCount == 0 {
		o.MinCount = 5
	}
	keyed := s.Records - s.Unkeyed
	if keyed <= 0 || len(s.Keys) == 0 {
		return nil, fmt.Errorf("topic %s: no keyed records in the sample (%d records, %d without a key): nothing to fit", s.Topic, s.Records, s.Unkeyed)
	}
	if s.Partitions < 1 {
		return nil, fmt.Errorf("topic %s: %d partitions", s.Topic, s.Partitions)
	}
	all := make([]keyCount, 0, len(s.Keys))
	for k, n := range s.Keys {
		all = append(all, keyCount{k, n})
	}
	slices.SortFunc(all, func(a, b keyCount) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.key, b.key)) })
	f := &KeyFit{Distinct: len(all), Records: s.Records, Unkeyed: s.Unkeyed, Partitions: s.Partitions}

	// The partitioner: given, or the one that agrees with what was seen.
	part, matched, err := choosePartitioner(s, o.Partitioner)
	if err != nil {
		return nil, err
	}
	f.Partitioner, f.Matched = part.Name(), matched

	var named []keyCount
	for _, c := range all {
		if len(named) >= o.Top || c.n < int64(o.MinCount) {
			break
		}
		named = append(named, c)
	}
	rest := all[len(named):]
	f.Named = len(named)
	f.Estimated = chao1(all)
	f.TailExponent = zipfExponent(rest)

	ex, taken, err := f.nameKeys(s, named, keyed, part, o.Anonymize)
	if err != nil {
		return nil, err
	}
	// The rest: spread evenly over formatted keys, as many as the traffic
	// is estimated to have beyond the named ones.
	restCount := max(f.Estimated-len(ex), 1)
	format := restFormat(taken)
	switch {
	case len(ex) == 0:
		f.Keys = Keys{Count: min(max(f.Estimated, 1), MaxKeys), Format: format, Distribution: DistUniform}
	default:
		f.Keys = Keys{Count: min(restCount, MaxKeys), Format: format, Distribution: DistExplicit, Explicit: ex}
	}
	if err := f.skew(s, part); err != nil {
		return nil, err
	}
	return f, nil
}

// nameKeys gives the named keys their shares of the keyed records,
// rounded down so that they never sum above 1, each under its own name
// or, anonymized (or not text), under a name that keeps its partition.
// It returns them and the names taken.
func (f *KeyFit) nameKeys(s *KeySample, named []keyCount, keyed int64, part partitioner.Partitioner, anon string) ([]ExplicitKey, map[string]bool, error) {
	var ex []ExplicitKey
	sum := 0.0
	taken := map[string]bool{}
	for i, c := range named {
		share := math.Floor(float64(c.n)/float64(keyed)*1e6) / 1e6
		if share <= 0 {
			continue
		}
		name := c.key
		if how := anon; how != "" || !utf8.ValidString(name) {
			if how == "" {
				// A YAML text holds no raw bytes: a key that is not text
				// is named after its hash.
				how = "hash"
				f.Hashed++
			}
			p, ok := s.KeyPartition[c.key]
			if !ok {
				p = part.Partition([]byte(c.key), int32(s.Partitions))
			}
			var err error
			if name, err = anonymize(c.key, i, how, p, part, int32(s.Partitions), taken); err != nil {
				return nil, nil, err
			}
		}
		taken[name] = true
		ex = append(ex, ExplicitKey{Key: name, Share: share})
		sum += share
	}
	f.NamedShare = sum
	return ex, taken, nil
}

// skew sets the partition skew: the topic's, as sampled, and the fitted
// keys', as the partitioner spreads them.
func (f *KeyFit) skew(s *KeySample, part partitioner.Partitioner) error {
	var total int64
	for _, n := range s.Window {
		total += n
	}
	for p, n := range s.Window {
		if total > 0 {
			if sh := float64(n) / float64(total); sh > f.TopicHottest {
				f.TopicHottest, f.TopicPartition = sh, int32(p)
			}
		}
	}
	ks, dist, err := f.Keys.keyspace()
	if err != nil {
		return err
	}
	load := PredictLoad(ks, dist, part, int32(s.Partitions))
	f.PredictedPartition, f.PredictedHottest = load.Hottest()
	return nil
}

// keyspace is Spec.Keyspace for a keys section alone.
func (k Keys) keyspace() (*keygen.Keyspace, keygen.Distribution, error) {
	s := &Spec{Keys: k}
	return s.Keyspace()
}

// choosePartitioner returns the named partitioner, or the one that puts
// the most sampled keys in the partition they were seen in.
func choosePartitioner(s *KeySample, name string) (partitioner.Partitioner, float64, error) {
	agree := func(p partitioner.Partitioner) float64 {
		if len(s.KeyPartition) == 0 {
			return 0
		}
		n := 0
		for k, seen := range s.KeyPartition {
			if p.Partition([]byte(k), int32(s.Partitions)) == seen {
				n++
			}
		}
		return float64(n) / float64(len(s.KeyPartition))
	}
	if name != "" {
		p, err := partitioner.New(name)
		if err != nil {
			return nil, 0, fmt.Errorf("--partitioner %s: %w", name, err)
		}
		return p, agree(p), nil
	}
	var best partitioner.Partitioner
	top := -1.0
	for _, n := range partitioner.Names() {
		p, _ := partitioner.New(n)
		if a := agree(p); a > top {
			best, top = p, a
		}
	}
	return best, top, nil
}

// chao1 estimates the distinct keys of the traffic from the sample: the
// keys seen, plus f1^2 / (2 f2) for the keys seen once (f1) and twice
// (f2): Chao's lower-bound estimator of the unseen.
func chao1(all []keyCount) int {
	var f1, f2 float64
	for _, c := range all {
		switch c.n {
		case 1:
			f1++
		case 2:
			f2++
		}
	}
	d := float64(len(all))
	switch {
	case f1 == 0:
	case f2 == 0:
		d += f1 * (f1 - 1) / 2
	default:
		d += f1 * f1 / (2 * f2)
	}
	return int(math.Min(math.Round(d), MaxKeys))
}

// zipfExponent fits count = a / rank^s to the keys (in rank order) seen
// at least twice: least squares of log count on log rank; 0 with fewer
// than 10 such keys.
func zipfExponent(keys []keyCount) float64 {
	var xs, ys []float64
	for i, c := range keys {
		if c.n < 2 {
			break
		}
		xs = append(xs, math.Log(float64(i+1)))
		ys = append(ys, math.Log(float64(c.n)))
	}
	if len(xs) < 10 {
		return 0
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0
	}
	return math.Max(0, -sxy/sxx)
}

// anonymize renames a key: after a hash of it ("hash": h-<12 hex>) or its
// rank ("index": key-<rank>), then a suffix -1, -2, ... until the name
// falls in the key's partition under the partitioner and is not taken.
func anonymize(key string, rank int, how string, partition int32, p partitioner.Partitioner, n int32, taken map[string]bool) (string, error) {
	var base string
	switch how {
	case "hash":
		h := sha256.Sum256([]byte(key))
		base = "h-" + hex.EncodeToString(h[:6])
	case "index":
		base = fmt.Sprintf("key-%04d", rank+1)
	default:
		return "", fmt.Errorf("--anonymize %q: expected hash or index", how)
	}
	for i := 0; i < 100*int(n)+100; i++ {
		name := base
		if i > 0 {
			name = base + "-" + strconv.Itoa(i)
		}
		if !taken[name] && p.Partition([]byte(name), n) == partition {
			return name, nil
		}
	}
	return "", fmt.Errorf("no name for key %d that %s puts in partition %d", rank+1, p.Name(), partition)
}

// restFormat is the format of the keys not named: one no named key can
// be mistaken for.
func restFormat(named map[string]bool) string {
	for i := 0; ; i++ {
		prefix := "rest-"
		if i > 0 {
			prefix = fmt.Sprintf("rest%d-", i)
		}
		clash := false
		for k := range named {
			if strings.HasPrefix(k, prefix) {
				clash = true
				break
			}
		}
		if !clash {
			return prefix + "%07d"
		}
	}
}

// YAML renders the fit as a workload's keys section, with what backs it
// in comments: the sample, the partitioner and partition count it
// assumes, the skew it reproduces. header lines come first, as comments.
func (f *KeyFit) YAML(header []string) []byte {
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# " + h + "\n")
	}
	keyed := f.Records - f.Unkeyed
	fmt.Fprintf(&b, "# %d records sampled, %d with a key, %d distinct keys (%d estimated in the traffic, Chao1).\n", f.Records, keyed, f.Distinct, f.Estimated)
	if f.Unkeyed > 0 {
		fmt.Fprintf(&b, "# %d records had no key: a workload cannot express them, they are left out.\n", f.Unkeyed)
	}
	fmt.Fprintf(&b, "# The %d heaviest keys are named, %.2f%% of the keyed records; the rest spreads evenly over %d other keys", f.Named, 100*f.NamedShare, f.Keys.Count)
	if f.TailExponent > 0 {
		fmt.Fprintf(&b, "\n# (in the sample it falls off as a zipf of exponent %.2f)", f.TailExponent)
	}
	b.WriteString(".\n")
	if f.Hashed > 0 {
		fmt.Fprintf(&b, "# %d keys are not text (UTF-8): named after their hash, in the same partition.\n", f.Hashed)
	}
	fmt.Fprintf(&b, "# Set producer.partitioner: %s (it puts %.1f%% of the sampled keys where they were seen) and\n", f.Partitioner, 100*f.Matched)
	fmt.Fprintf(&b, "# topic.partitions: %d: the topic's hottest partition %d carries %.2f%% of its records;\n", f.Partitions, f.TopicPartition, 100*f.TopicHottest)
	fmt.Fprintf(&b, "# these keys give partition %d %.2f%% (loadgen plan predicts every partition).\n", f.PredictedPartition, 100*f.PredictedHottest)
	b.WriteString("keys:\n")
	fmt.Fprintf(&b, "  count: %d\n", f.Keys.Count)
	fmt.Fprintf(&b, "  format: %s\n", strconv.Quote(f.Keys.Format))
	fmt.Fprintf(&b, "  distribution: %s\n", f.Keys.Distribution)
	if len(f.Keys.Explicit) > 0 {
		b.WriteString("  explicit:\n")
		for _, e := range f.Keys.Explicit {
			fmt.Fprintf(&b, "    - {key: %s, share: %s}\n", strconv.Quote(e.Key), strconv.FormatFloat(e.Share, 'f', -1, 64))
		}
	}
	return []byte(b.String())
}
