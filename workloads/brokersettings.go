package workloads

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/clip"
)

// A broker setting of a workload (broker.config) is checked as the broker
// would read it: a setting Kafka does not know is ignored by the broker
// with a line in its log, and one that does not parse as its type stops
// the broker, after the run has started. Both are errors here, before
// anything starts.

// brokerKind is the type of a broker setting (Kafka's ConfigDef.Type).
type brokerKind int

const (
	brokerBool brokerKind = iota
	brokerInt
	brokerLong
	brokerShort
	brokerDouble
	brokerString
	brokerList
	brokerClass
	brokerPassword
)

// brokerSetting is one setting's type and range (kafkaBrokerSettings).
type brokerSetting struct {
	kind           brokerKind
	min, max       float64
	hasMin, hasMax bool
}

// ReservedBrokerSettings are set by the local cluster itself: where a
// node listens and keeps its data.
var ReservedBrokerSettings = []string{"process.roles", "node.id", "controller.quorum.voters",
	"controller.quorum.bootstrap.servers", "listeners", "advertised.listeners",
	"controller.listener.names", "inter.broker.listener.name",
	"listener.security.protocol.map", "log.dirs", "log.dir"}

// brokerSettingPrefixes name families of settings the table cannot
// list: per-listener overrides and the settings of pluggable parts.
var brokerSettingPrefixes = []string{"listener.name.", "rsm.config.", "rlmm.config.", "config.providers."}

// checkBrokerSetting returns why value is not a value the broker would
// take for name ("" if it would).
func checkBrokerSetting(name, value string) string {
	if slices.Contains(ReservedBrokerSettings, name) {
		return "set by the local cluster (where a node listens and keeps its data), not by a workload"
	}
	st, ok := kafkaBrokerSettings[name]
	if !ok {
		for _, p := range brokerSettingPrefixes {
			if strings.HasPrefix(name, p) {
				return ""
			}
		}
		if s := closestBrokerSetting(name); s != "" {
			return fmt.Sprintf("not a broker setting of Kafka %s, did you mean %s?", brokerSettingsRelease, s)
		}
		return fmt.Sprintf("not a broker setting of Kafka %s", brokerSettingsRelease)
	}
	v := strings.TrimSpace(value) // as Kafka's ConfigDef.parseType does
	var n float64
	switch st.kind {
	case brokerBool:
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return fmt.Sprintf("got %s, expected true or false", clip.Quote(value))
		}
		return ""
	case brokerInt, brokerLong, brokerShort:
		bits, what := map[brokerKind]int{brokerInt: 32, brokerLong: 64, brokerShort: 16}[st.kind], map[brokerKind]string{brokerInt: "an int", brokerLong: "a long", brokerShort: "a short"}[st.kind]
		i, err := strconv.ParseInt(v, 10, bits)
		if err != nil {
			return fmt.Sprintf("got %s, expected %s (a %d-bit integer)", clip.Quote(value), what, bits)
		}
		n = float64(i)
	case brokerDouble:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) {
			return fmt.Sprintf("got %s, expected a number", clip.Quote(value))
		}
		n = f
	default:
		return "" // strings, lists, class names: the broker takes any text
	}
	switch {
	case st.hasMin && st.hasMax && (n < st.min || n > st.max):
		return fmt.Sprintf("got %s, expected from %s to %s", clip.String(v), num(st.min), num(st.max))
	case st.hasMin && n < st.min:
		return fmt.Sprintf("got %s, expected at least %s", clip.String(v), num(st.min))
	}
	return ""
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// closestBrokerSetting returns the setting closest to name, if it is a
// likely typo.
func closestBrokerSetting(name string) string {
	names := make([]string, 0, len(kafkaBrokerSettings))
	for s := range kafkaBrokerSettings {
		names = append(names, s)
	}
	return closest(name, names)
}
