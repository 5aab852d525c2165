package workloads

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// decoder walks the YAML node tree into a Spec, recording the line of
// every field it sees and a problem for every field it cannot read. Range
// and consistency checks come later (validate.go); here only shapes and
// types are checked.
type decoder struct {
	*problems
	pos map[string]int
}

// fieldFuncs reads the fields of one mapping, by key.
type fieldFuncs map[string]func(v *yaml.Node, field string)

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// describe names what a node is, for "got ..." in messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing (null)"
		case "!!bool":
			return "boolean " + clip.String(n.Value)
		case "!!int", "!!float":
			return "number " + clip.String(n.Value)
		}
		return clip.Quote(n.Value)
	}
	return "something else"
}

// mapping reads a mapping with the given fields; unknown and repeated keys
// are problems. It returns false when n is not a mapping.
func (d *decoder) mapping(n *yaml.Node, field string, fields fieldFuncs) bool {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
			return true // an empty section: all defaults
		}
		d.add(n.Line, field, "got %s, expected a mapping of %s", describe(n), listFields(fields))
		return false
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		name := k.Value
		// The path is part of every message about the field: an unknown
		// name in it is cut short (package clip).
		sub := clip.String(name)
		if field != "" {
			sub = field + "." + sub
		}
		if k.Kind != yaml.ScalarNode {
			d.add(k.Line, field, "got %s as a key, expected a field name", describe(k))
			continue
		}
		if prev, dup := seen[name]; dup {
			d.add(k.Line, sub, "given twice (first on line %d)", prev)
			continue
		}
		seen[name] = k.Line
		fn, ok := fields[name]
		if !ok {
			msg := fmt.Sprintf("unknown field, expected one of %s", listFields(fields))
			if s := suggest(name, fields); s != "" {
				msg = fmt.Sprintf("unknown field, did you mean %s? (expected one of %s)", s, listFields(fields))
			}
			d.add(k.Line, sub, "%s", msg)
			continue
		}
		d.pos[sub] = k.Line
		fn(v, sub)
	}
	return true
}

func listFields(fields fieldFuncs) string {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// suggest returns the field name closest to name, if it is a likely typo.
func suggest(name string, fields fieldFuncs) string {
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	return closest(strings.ToLower(name), names)
}

// closest returns the name of names nearest to name, when it is a likely
// typo of it: at most two edits away, and fewer than name's own length
// (the first of equals in name order); "" when none is.
func closest(name string, names []string) string {
	if len(name) > 128 {
		return "" // no name is that long, and the distance costs its length
	}
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	if bestD > 2 || bestD >= len(name) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// list reads a sequence, calling fn with each element and its field path.
func (d *decoder) list(n *yaml.Node, field, what string, fn func(i int, v *yaml.Node, field string)) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		d.add(n.Line, field, "got %s, expected a list of %s", describe(n), what)
		return
	}
	for i, v := range n.Content {
		sub := fmt.Sprintf("%s[%d]", field, i)
		d.pos[sub] = resolve(v).Line
		fn(i, resolve(v), sub)
	}
}

// names reads one name or a list of names (strategies: range, or
// strategies: [range, sticky]).
func (d *decoder) names(n *yaml.Node, field, what string) []string {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		return []string{n.Value}
	}
	var out []string
	d.list(n, field, what, func(i int, v *yaml.Node, f string) {
		if s, ok := d.str(v, f, what); ok {
			out = append(out, s)
		}
	})
	if out == nil {
		out = []string{}
	}
	return out
}

func (d *decoder) str(n *yaml.Node, field, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int") {
		d.add(n.Line, field, "got %s, expected %s", describe(n), what)
		return "", false
	}
	return n.Value, true
}

func (d *decoder) boolean(n *yaml.Node, field string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.add(n.Line, field, "got %s, expected true or false", describe(n))
		return false, false
	}
	b, _ := strconv.ParseBool(n.Value)
	return b, true
}

func (d *decoder) integer(n *yaml.Node, field, what string) (int64, bool) {
	if n.Kind == yaml.ScalarNode {
		v := strings.ReplaceAll(n.Value, "_", "")
		switch n.ShortTag() {
		case "!!int":
			if i, err := strconv.ParseInt(v, 0, 64); err == nil {
				return i, true
			}
		case "!!float":
			if f, err := strconv.ParseFloat(v, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
				return int64(f), true
			}
		}
	}
	d.add(n.Line, field, "got %s, expected %s", describe(n), what)
	return 0, false
}

func (d *decoder) number(n *yaml.Node, field, what string) (float64, bool) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	d.add(n.Line, field, "got %s, expected %s", describe(n), what)
	return 0, false
}

func (d *decoder) duration(n *yaml.Node, field string) (time.Duration, bool) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str":
			if v, err := time.ParseDuration(n.Value); err == nil {
				return v, true
			}
		case "!!int":
			if n.Value == "0" {
				return 0, true
			}
			v := clip.String(n.Value)
			d.add(n.Line, field, "got number %s, expected a duration with a unit, e.g. %ss or %sms (a bare number is ambiguous)", v, v, v)
			return 0, false
		}
	}
	d.add(n.Line, field, "got %s, expected a duration such as 30s, 500ms or 2m", describe(n))
	return 0, false
}

// properties reads a mapping of Kafka property names to scalar values,
// kept as written ("0", "true", "SASL_SSL").
func (d *decoder) properties(n *yaml.Node, field string) map[string]string {
	n = resolve(n)
	out := map[string]string{}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return out
	}
	if n.Kind != yaml.MappingNode {
		d.add(n.Line, field, "got %s, expected a mapping of Kafka property names to values", describe(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		sub := field + "." + clip.String(k.Value)
		if _, dup := out[k.Value]; dup {
			d.add(k.Line, sub, "given twice")
			continue
		}
		if k.Kind != yaml.ScalarNode || strings.TrimSpace(k.Value) == "" {
			d.add(k.Line, field, "got %s as a property name, expected a Kafka property name", describe(k))
			continue
		}
		if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			d.add(v.Line, sub, "got %s, expected a property value (a string, number or boolean)", describe(v))
			continue
		}
		d.pos[sub] = k.Line
		out[k.Value] = v.Value
	}
	return out
}

// decodeSpec reads the whole document into s.
func (d *decoder) decodeSpec(root *yaml.Node, s *Spec) {
	d.mapping(root, "", fieldFuncs{
		"name": func(v *yaml.Node, f string) {
			s.Name, _ = d.str(v, f, "a name of lower-case letters, digits and '-'")
		},
		"seed": func(v *yaml.Node, f string) {
			s.Seed, _ = d.integer(v, f, "an integer (int64)")
		},
		"duration": func(v *yaml.Node, f string) {
			s.Duration, _ = d.duration(v, f)
		},
		"records": func(v *yaml.Node, f string) {
			s.Records, _ = d.integer(v, f, "a number of records (an integer >= 1)")
		},
		"topic": func(v *yaml.Node, f string) { d.topic(v, f, &s.Topic) },
		"keys":  func(v *yaml.Node, f string) { d.keys(v, f, &s.Keys) },
		"value": func(v *yaml.Node, f string) {
			d.mapping(v, f, fieldFuncs{
				"size": func(v *yaml.Node, f string) {
					n, _ := d.integer(v, f, "a size in bytes (an integer)")
					s.Value.Size = int(n)
				},
			})
		},
		"producer": func(v *yaml.Node, f string) { d.producer(v, f, &s.Producer) },
		"consumer": func(v *yaml.Node, f string) { d.consumer(v, f, &s.Consumer) },
		"strategies": func(v *yaml.Node, f string) {
			s.Strategies = d.names(v, f, "strategy names")
		},
		"commit_policies": func(v *yaml.Node, f string) {
			s.CommitPolicies = d.names(v, f, "commit policy names")
		},
		"clients": func(v *yaml.Node, f string) {
			s.Clients = d.names(v, f, "client names ("+strings.Join(vocab.ClientNames(), ", ")+")")
		},
		"broker": func(v *yaml.Node, f string) {
			d.mapping(v, f, fieldFuncs{
				"brokers": func(v *yaml.Node, f string) {
					n, _ := d.integer(v, f, "1 or 3")
					s.Broker.Brokers = int(n)
				},
				"config": func(v *yaml.Node, f string) { s.Broker.Config = d.properties(v, f) },
			})
		},
		"chaos":      func(v *yaml.Node, f string) { d.chaos(v, f, &s.Chaos) },
		"autoscaler": func(v *yaml.Node, f string) { d.autoscaler(v, f, &s.Autoscaler) },
		"expect":     func(v *yaml.Node, f string) { d.expect(v, f, &s.Expect) },
		"targets":    func(v *yaml.Node, f string) { d.targets(v, f, &s.Targets) },
	})
}

func (d *decoder) expect(n *yaml.Node, field string, out *[]Expectation) {
	*out = []Expectation{}
	d.list(n, field, "expectations", func(i int, v *yaml.Node, f string) {
		var x Expectation
		d.mapping(v, f, fieldFuncs{
			"metric": func(v *yaml.Node, f string) { x.Metric, _ = d.str(v, f, "a metric name of the reports") },
			"strategies": func(v *yaml.Node, f string) {
				x.Strategies = d.names(v, f, "strategy names")
			},
			"min": func(v *yaml.Node, f string) {
				if n, ok := d.number(v, f, "a number"); ok {
					x.Min = &n
				}
			},
			"max": func(v *yaml.Node, f string) {
				if n, ok := d.number(v, f, "a number"); ok {
					x.Max = &n
				}
			},
			"why": func(v *yaml.Node, f string) { x.Why, _ = d.str(v, f, "the reason, in words") },
		})
		*out = append(*out, x)
	})
}

func (d *decoder) topic(n *yaml.Node, field string, t *Topic) {
	d.mapping(n, field, fieldFuncs{
		"name": func(v *yaml.Node, f string) { t.Name, _ = d.str(v, f, "a topic name") },
		"partitions": func(v *yaml.Node, f string) {
			p, _ := d.integer(v, f, "a partition count (an integer >= 1)")
			t.Partitions = int(p)
		},
		"replication": func(v *yaml.Node, f string) {
			r, _ := d.integer(v, f, "a replication factor (an integer >= 1)")
			t.Replication = int(r)
		},
	})
}

func (d *decoder) keys(n *yaml.Node, field string, k *Keys) {
	d.mapping(n, field, fieldFuncs{
		"count": func(v *yaml.Node, f string) {
			c, _ := d.integer(v, f, "a number of keys (an integer >= 1)")
			k.Count = int(c)
		},
		"format": func(v *yaml.Node, f string) {
			k.Format, _ = d.str(v, f, `a key format with one %d verb, e.g. "k%06d"`)
		},
		"distribution": func(v *yaml.Node, f string) {
			k.Distribution, _ = d.str(v, f, "uniform, zipf, hotspot or explicit")
		},
		"zipf": func(v *yaml.Node, f string) {
			k.Zipf = &Zipf{}
			d.mapping(v, f, fieldFuncs{
				"exponent": func(v *yaml.Node, f string) {
					k.Zipf.Exponent, _ = d.number(v, f, "an exponent (a number > 0)")
				},
			})
		},
		"hotspot": func(v *yaml.Node, f string) {
			k.Hotspot = &Hotspot{}
			d.mapping(v, f, fieldFuncs{
				"share": func(v *yaml.Node, f string) {
					k.Hotspot.Share, _ = d.number(v, f, "a fraction of the traffic (between 0 and 1)")
				},
				"hot_keys": func(v *yaml.Node, f string) {
					h, _ := d.integer(v, f, "a number of hot keys (an integer >= 1)")
					k.Hotspot.HotKeys = int(h)
				},
			})
		},
		"explicit": func(v *yaml.Node, f string) {
			k.Explicit = []ExplicitKey{}
			d.list(v, f, "{key, share} entries", func(i int, v *yaml.Node, f string) {
				var e ExplicitKey
				d.mapping(v, f, fieldFuncs{
					"key":   func(v *yaml.Node, f string) { e.Key, _ = d.str(v, f, "a key (a string)") },
					"share": func(v *yaml.Node, f string) { e.Share, _ = d.number(v, f, "a fraction of the traffic (> 0 and <= 1)") },
				})
				k.Explicit = append(k.Explicit, e)
			})
		},
	})
}

const rateExpected = `a rate in records/s (a number >= 0; 0 or "unlimited": as fast as possible)`

func (d *decoder) rate(v *yaml.Node, f string) float64 {
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value == "unlimited" {
		return 0
	}
	r, _ := d.number(v, f, rateExpected)
	return r
}

func (d *decoder) producer(n *yaml.Node, field string, p *Producer) {
	d.mapping(n, field, fieldFuncs{
		"client": func(v *yaml.Node, f string) { p.Client, _ = d.str(v, f, "confluent or franz") },
		"rate":   func(v *yaml.Node, f string) { p.Rate = d.rate(v, f) },
		"ramp": func(v *yaml.Node, f string) {
			p.Ramp = &Ramp{}
			d.mapping(v, f, fieldFuncs{
				"from": func(v *yaml.Node, f string) { p.Ramp.From = d.rate(v, f) },
				"over": func(v *yaml.Node, f string) { p.Ramp.Over, _ = d.duration(v, f) },
			})
		},
		"steps": func(v *yaml.Node, f string) {
			p.Steps = []RateStep{}
			d.list(v, f, "{at, rate, over} steps", func(i int, v *yaml.Node, f string) {
				var st RateStep
				d.mapping(v, f, fieldFuncs{
					"at":   func(v *yaml.Node, f string) { st.At, _ = d.duration(v, f) },
					"rate": func(v *yaml.Node, f string) { st.Rate = d.rate(v, f) },
					"over": func(v *yaml.Node, f string) { st.Over, _ = d.duration(v, f) },
				})
				p.Steps = append(p.Steps, st)
			})
		},
		"acks": func(v *yaml.Node, f string) {
			if v.Kind == yaml.ScalarNode && (v.ShortTag() == "!!str" || v.ShortTag() == "!!int") {
				p.Acks = v.Value
				if p.Acks == "-1" {
					p.Acks = "all"
				}
				return
			}
			d.add(v.Line, f, "got %s, expected all, 1 or 0", describe(v))
		},
		"idempotence": func(v *yaml.Node, f string) { p.Idempotence, _ = d.boolean(v, f) },
		"max_in_flight": func(v *yaml.Node, f string) {
			m, _ := d.integer(v, f, "a number of requests (an integer >= 1)")
			p.MaxInFlight = int(m)
		},
		"linger": func(v *yaml.Node, f string) { p.Linger, _ = d.duration(v, f) },
		"batch_size": func(v *yaml.Node, f string) {
			b, _ := d.integer(v, f, "a size in bytes (an integer >= 1)")
			p.BatchSize = int(b)
		},
		"compression": func(v *yaml.Node, f string) {
			p.Compression, _ = d.str(v, f, "none, gzip, snappy, lz4 or zstd")
		},
		"partitioner": func(v *yaml.Node, f string) {
			p.Partitioner, _ = d.str(v, f, "murmur2, consistent, fnv1a or jump")
		},
	})
}

func (d *decoder) consumer(n *yaml.Node, field string, c *Consumer) {
	dur := func(dst *time.Duration) func(v *yaml.Node, f string) {
		return func(v *yaml.Node, f string) { *dst, _ = d.duration(v, f) }
	}
	d.mapping(n, field, fieldFuncs{
		"members": func(v *yaml.Node, f string) {
			m, _ := d.integer(v, f, "a number of members (an integer >= 1)")
			c.Members = int(m)
		},
		"processing": func(v *yaml.Node, f string) {
			d.mapping(v, f, fieldFuncs{
				"cost": dur(&c.Processing.Cost),
				"distribution": func(v *yaml.Node, f string) {
					c.Processing.Distribution, _ = d.str(v, f, "fixed, uniform or exponential")
				},
				"jitter": dur(&c.Processing.Jitter),
			})
		},
		"max_poll_records": func(v *yaml.Node, f string) {
			m, _ := d.integer(v, f, "a number of records (an integer >= 1)")
			c.MaxPollRecords = int(m)
		},
		"session_timeout":      dur(&c.SessionTimeout),
		"heartbeat_interval":   dur(&c.HeartbeatInterval),
		"max_poll_interval":    dur(&c.MaxPollInterval),
		"auto_commit_interval": dur(&c.AutoCommitInterval),
		"static_membership":    func(v *yaml.Node, f string) { c.StaticMembership, _ = d.boolean(v, f) },
		"properties":           func(v *yaml.Node, f string) { c.Properties = d.properties(v, f) },
		"transaction": func(v *yaml.Node, f string) {
			t := &c.Transaction
			d.mapping(v, f, fieldFuncs{
				"transactional_id": func(v *yaml.Node, f string) {
					t.TransactionalID, _ = d.str(v, f, TxnIDPerMember+" or "+TxnIDPerIncarnation)
				},
				"timeout": dur(&t.Timeout),
				"commit_records": func(v *yaml.Node, f string) {
					n, _ := d.integer(v, f, "a number of records (an integer >= 0)")
					t.CommitRecords = int(n)
				},
				"commit_interval": dur(&t.CommitInterval),
			})
		},
	})
}

func (d *decoder) chaos(n *yaml.Node, field string, c *Chaos) {
	d.mapping(n, field, fieldFuncs{
		"warmup":        func(v *yaml.Node, f string) { c.Warmup, _ = d.duration(v, f) },
		"drain_timeout": func(v *yaml.Node, f string) { c.DrainTimeout, _ = d.duration(v, f) },
		"steps": func(v *yaml.Node, f string) {
			c.Steps = []Step{}
			d.list(v, f, "chaos steps", func(i int, v *yaml.Node, f string) {
				var st Step
				d.mapping(v, f, fieldFuncs{
					"at":     func(v *yaml.Node, f string) { st.At, _ = d.duration(v, f) },
					"after":  func(v *yaml.Node, f string) { st.After, _ = d.duration(v, f) },
					"action": func(v *yaml.Node, f string) { st.Action, _ = d.str(v, f, "a chaos action") },
					"target": func(v *yaml.Node, f string) {
						st.Target, _ = d.str(v, f, "a member name (m1, m2, ...), random, owner:<partition>, producer or all")
					},
					"count": func(v *yaml.Node, f string) {
						n, _ := d.integer(v, f, "a number of members (an integer >= 1)")
						st.Count = int(n)
					},
					"duration": func(v *yaml.Node, f string) { st.Duration, _ = d.duration(v, f) },
					"interval": func(v *yaml.Node, f string) { st.Interval, _ = d.duration(v, f) },
					"partitions": func(v *yaml.Node, f string) {
						n, _ := d.integer(v, f, "the new partition count (an integer)")
						st.Partitions = int(n)
					},
					"broker": func(v *yaml.Node, f string) {
						st.Broker, _ = d.str(v, f, "a broker node id, random, coordinator (network steps) or txn-coordinator:<member> (broker_kill)")
					},
					"delay":  func(v *yaml.Node, f string) { st.Delay, _ = d.duration(v, f) },
					"jitter": func(v *yaml.Node, f string) { st.Jitter, _ = d.duration(v, f) },
					"bytes_per_second": func(v *yaml.Node, f string) {
						st.BytesPerSecond, _ = d.integer(v, f, "a rate in bytes a second (an integer >= 1024)")
					},
				})
				c.Steps = append(c.Steps, st)
			})
		},
	})
}
