package workloads

import (
	"strconv"
	"strings"
	"time"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The broker section's checks, and the broker settings a workload
// implies: the group timings the broker bounds, per protocol.

func (v *validator) broker() {
	b := v.s.Broker
	if b.Brokers != 1 && b.Brokers != 3 {
		v.errf("broker.brokers", "got %d, expected 1 or 3", b.Brokers)
	}
	for _, k := range sortedKeys(b.Config) {
		if strings.TrimSpace(k) != k || k == "" {
			v.errf("broker.config", "property name %s: expected a Kafka broker property name", clip.Quote(k))
		} else if why := checkBrokerSetting(k, b.Config[k]); why != "" {
			v.errf("broker.config."+clip.String(k), "%s", why)
		}
	}
	c := v.s.Consumer
	classic, consumer := v.s.protocols()
	for _, gs := range v.s.groupSettings() {
		if _, ok := b.Config[gs.Name]; ok {
			v.errf("broker.config."+gs.Name, "set from consumer.session_timeout and consumer.heartbeat_interval for the consumer-* strategies: set those instead")
		}
	}
	// A bound broker.config sets must admit the consumer's timing; one it
	// leaves unset is widened by BrokerSettings.
	for _, gb := range groupBounds {
		raw, ok := b.Config[gb.key]
		if !ok || !gb.applies(classic, consumer) || !v.ok("broker.config."+gb.key) {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil {
			v.errf("broker.config."+gb.key, "got %s, expected an integer (milliseconds)", clip.Quote(raw))
			continue
		}
		if v.ok(gb.field()) && gb.outside(gb.timing(c), n) {
			v.errf("broker.config."+gb.key, "%d ms does not allow %s %v", n, gb.field(), gb.timing(c))
		}
	}
}

// groupBound is a broker bound on a group timing: the classic protocol's
// session timeout, the consumer protocol's session timeout and heartbeat
// interval, each with a minimum and a maximum (Kafka's defaults, ms).
type groupBound struct {
	key       string
	def       int
	min       bool // a lower bound, else an upper one
	consumer  bool // the consumer protocol's, else the classic one's
	heartbeat bool // bounds consumer.heartbeat_interval, else consumer.session_timeout
}

var groupBounds = []groupBound{
	{"group.min.session.timeout.ms", 6000, true, false, false},
	{"group.max.session.timeout.ms", 1800000, false, false, false},
	{"group.consumer.min.session.timeout.ms", 45000, true, true, false},
	{"group.consumer.max.session.timeout.ms", 60000, false, true, false},
	{"group.consumer.min.heartbeat.interval.ms", 5000, true, true, true},
	{"group.consumer.max.heartbeat.interval.ms", 15000, false, true, true},
}

func (gb groupBound) applies(classic, consumer bool) bool {
	return gb.consumer && consumer || !gb.consumer && classic
}

func (gb groupBound) timing(c Consumer) time.Duration {
	if gb.heartbeat {
		return c.HeartbeatInterval
	}
	return c.SessionTimeout
}

func (gb groupBound) field() string {
	if gb.heartbeat {
		return "consumer.heartbeat_interval"
	}
	return "consumer.session_timeout"
}

// outside reports whether timing d is outside the bound n (ms).
func (gb groupBound) outside(d time.Duration, n int) bool {
	ms := int(d / time.Millisecond)
	return gb.min && ms < n || !gb.min && ms > n
}

// groupSettings are the consumer settings the workload's consumer-protocol
// groups hold on the broker (vocab.InGroup: the session timeout and the
// heartbeat interval, as group.consumer.*), none when it runs classic
// groups only.
func (s *Spec) groupSettings() vocab.Settings {
	for _, st := range s.Strategies {
		if vocab.IsConsumerProtocol(st) {
			c := s.Consumer
			return vocab.ConsumerConfig{
				Strategy:           st,
				SessionTimeout:     c.SessionTimeout,
				HeartbeatInterval:  c.HeartbeatInterval,
				MaxPollInterval:    c.MaxPollInterval,
				AutoCommitInterval: c.AutoCommitInterval,
				MaxPollRecords:     c.MaxPollRecords,
			}.Settings().In(vocab.InGroup)
		}
	}
	return nil
}

// protocols reports whether the workload runs classic groups, consumer
// protocol groups, or both.
func (s *Spec) protocols() (classic, consumer bool) {
	for _, st := range s.Strategies {
		if vocab.IsConsumerProtocol(st) {
			consumer = true
		} else {
			classic = true
		}
	}
	return classic, consumer
}

// BrokerSettings returns the broker properties of a local cluster for this
// workload: broker.config, plus what the consumer section implies for the
// broker. Under the consumer protocol (consumer-* strategies) session and
// heartbeat timings are broker settings, group.consumer.session.timeout.ms
// and group.consumer.heartbeat.interval.ms, set from consumer.session_timeout
// and consumer.heartbeat_interval; the bounds the broker checks them against
// (group.consumer.min/max.*, group.min/max.session.timeout.ms for classic
// groups) are widened to admit them when broker.config leaves them unset.
// An external cluster must already have equivalent settings.
func (s *Spec) BrokerSettings() map[string]string {
	out := map[string]string{}
	for k, v := range s.Broker.Config {
		out[k] = v
	}
	c := s.Consumer
	classic, consumer := s.protocols()
	for _, gs := range s.groupSettings() {
		out[gs.Name] = gs.Value
	}
	for _, gb := range groupBounds {
		if _, given := out[gb.key]; given || !gb.applies(classic, consumer) {
			continue
		}
		if d := gb.timing(c); gb.outside(d, gb.def) {
			out[gb.key] = strconv.Itoa(int(d / time.Millisecond))
		}
	}
	return out
}
