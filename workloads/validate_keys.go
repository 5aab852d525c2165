package workloads

import (
	"fmt"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/keygen"
)

// The keys section's checks: the key space, its distribution, the
// listed keys and their shares.

// keys checks the key space and the section of its distribution.
func (v *validator) keys() {
	k := v.s.Keys
	if k.Count < 1 || k.Count > MaxKeys {
		v.errf("keys.count", "got %d, expected a number of keys from 1 to %d", k.Count, MaxKeys)
	}
	format, err := keygen.ParseFormat(k.Format)
	if err != nil {
		v.errf("keys.format", "%s: %v", clip.Quote(k.Format), err)
	}
	if !v.enum("keys.distribution", k.Distribution, []string{DistUniform, DistZipf, DistHotspot, DistExplicit}) {
		return
	}
	// A section for another distribution than the chosen one says one
	// thing while the workload does another.
	for _, sec := range []struct {
		name string
		set  bool
	}{{DistZipf, k.Zipf != nil}, {DistHotspot, k.Hotspot != nil}, {DistExplicit, k.Explicit != nil}} {
		if sec.set && sec.name != k.Distribution {
			v.errf("keys."+sec.name, "set, but keys.distribution is %s: expected distribution: %s, or no %s section", k.Distribution, sec.name, sec.name)
		}
		if !sec.set && sec.name == k.Distribution {
			v.errf("keys.distribution", "%s needs a keys.%s section (see workloads/README.md)", sec.name, sec.name)
		}
	}
	switch k.Distribution {
	case DistZipf:
		if k.Zipf != nil {
			v.zipfKeys(k.Zipf)
		}
	case DistHotspot:
		if k.Hotspot != nil {
			v.hotspotKeys(k.Hotspot, k.Count)
		}
	case DistExplicit:
		if k.Explicit != nil {
			v.explicitKeys(k, format, err)
		}
	}
}

func (v *validator) zipfKeys(z *Zipf) {
	if !v.s.set("keys.zipf.exponent") {
		v.errf("keys.zipf", "no exponent: expected exponent: a number > 0 (e.g. 1.1; 0.99 as in YCSB)")
	} else if e := z.Exponent; !(e > 0) || e > 100 {
		v.errf("keys.zipf.exponent", "got %v, expected a number > 0 (and at most 100)", e)
	}
}

// hotspotKeys checks the hot keys against count, the number of keys.
func (v *validator) hotspotKeys(h *Hotspot, count int) {
	if !v.s.set("keys.hotspot.share") {
		v.errf("keys.hotspot", "no share: expected share: the fraction of traffic to the hot keys, e.g. 0.8")
	} else if !(h.Share > 0 && h.Share < 1) {
		v.errf("keys.hotspot.share", "got %v, expected a fraction strictly between 0 and 1", h.Share)
	}
	if !v.s.set("keys.hotspot.hot_keys") {
		v.errf("keys.hotspot", "no hot_keys: expected hot_keys: how many keys are hot, e.g. 10")
	} else if !v.ok("keys.count") {
		// Compared with a count that is itself wrong: that error says it.
	} else if h.HotKeys < 1 || h.HotKeys >= count {
		v.errf("keys.hotspot.hot_keys", "got %d, expected from 1 to keys.count - 1 (%d)", h.HotKeys, count-1)
	}
}

// explicitKeys checks the listed keys and their shares. A listed key must
// not also be one of the formatted keys (when keys.format parsed:
// formatErr is nil).
func (v *validator) explicitKeys(k Keys, format keygen.Format, formatErr error) {
	if len(k.Explicit) == 0 {
		v.errf("keys.explicit", "empty: expected at least one {key, share}")
	}
	if len(k.Explicit) > MaxExplicitKeys {
		v.errf("keys.explicit", "%d keys, expected at most %d", len(k.Explicit), MaxExplicitKeys)
		return
	}
	seen := map[string]int{}
	sum := 0.0
	for i, e := range k.Explicit {
		f := fmt.Sprintf("keys.explicit[%d]", i)
		if !v.s.set(f + ".key") {
			v.errf(f, "no key: expected key: a key name")
		} else if e.Key == "" {
			v.errf(f+".key", "empty: expected a non-empty key")
		} else if j, dup := seen[e.Key]; dup {
			v.errf(f+".key", "%s is listed twice (also keys.explicit[%d])", clip.Quote(e.Key), j)
		} else if idx, ok := format.Index(e.Key); formatErr == nil && ok && idx < k.Count {
			v.errf(f+".key", "%s is also formatted key %d of keys.format %s: expected a key outside the formatted keys", clip.Quote(e.Key), idx, clip.Quote(k.Format))
		}
		seen[e.Key] = i
		if !v.s.set(f + ".share") {
			v.errf(f, "no share: expected share: a fraction of the traffic")
		} else if !(e.Share > 0 && e.Share <= 1) {
			v.errf(f+".share", "got %v, expected a fraction > 0 and <= 1", e.Share)
		}
		sum += e.Share
	}
	if sum > 1+1e-9 {
		v.errf("keys.explicit", "the shares sum to %.6g: expected at most 1 (the rest goes uniformly to the formatted keys)", sum)
	}
}
