package vocab

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// The consumer settings a member's configuration becomes, by Kafka name,
// per group protocol. Every client's configuration is made from them (the
// members map each name to their library's own setting), the cell record
// records them, and the broker settings and the driver's group configs
// take the group's from them.

// Consumer setting names, as Kafka's Java client and librdkafka spell them.
const (
	SettingGroupProtocol      = "group.protocol"
	SettingAssignmentStrategy = "partition.assignment.strategy"
	SettingRemoteAssignor     = "group.remote.assignor"
	SettingSessionTimeout     = "session.timeout.ms"
	SettingHeartbeatInterval  = "heartbeat.interval.ms"
	SettingMaxPollInterval    = "max.poll.interval.ms"
	SettingMaxPollRecords     = "max.poll.records"
	SettingAutoCommitInterval = "auto.commit.interval.ms"
	SettingInstanceID         = "group.instance.id"
	// SettingGroupSessionTimeout and SettingGroupHeartbeatInterval are the
	// consumer protocol's session timeout and heartbeat interval: the
	// broker's defaults for every group, by these names, and a group's own
	// by its group configs (Setting.GroupConfig).
	SettingGroupSessionTimeout    = "group.consumer.session.timeout.ms"
	SettingGroupHeartbeatInterval = "group.consumer.heartbeat.interval.ms"
)

// Place is where a consumer setting goes.
type Place string

const (
	// InClient: the client's own configuration.
	InClient Place = "client"
	// InGroup: the group's configuration, held by the broker. A client
	// of the consumer protocol refuses the session timings
	// (session.timeout.ms, heartbeat.interval.ms): the broker owns them.
	InGroup Place = "group"
)

// Setting is one consumer setting: its Kafka name, its value as Kafka
// reads it (a timing in whole milliseconds), and where it goes.
type Setting struct {
	Name  string
	Value string
	Place Place
}

// GroupConfig is the name of a group's setting (InGroup) as a config of
// the group itself (KIP-848's group configs, set by IncrementalAlterConfigs
// on the group): the broker's default without its "group." prefix,
// consumer.session.timeout.ms for group.consumer.session.timeout.ms.
func (s Setting) GroupConfig() string { return strings.TrimPrefix(s.Name, "group.") }

// Settings is a list of consumer settings, sorted by name.
type Settings []Setting

// In returns the settings that go to p.
func (ss Settings) In(p Place) Settings {
	var out Settings
	for _, s := range ss {
		if s.Place == p {
			out = append(out, s)
		}
	}
	return out
}

// Map returns the settings' values by name.
func (ss Settings) Map() map[string]string {
	out := make(map[string]string, len(ss))
	for _, s := range ss {
		out[s.Name] = s.Value
	}
	return out
}

// ConsumerConfig is what a member's consumer settings are made of: its
// strategy, its timings and its membership (member.Config holds them,
// from a workload's consumer section).
type ConsumerConfig struct {
	Strategy string
	// SessionTimeout is session.timeout.ms (classic), the group's
	// group.consumer.session.timeout.ms (consumer protocol).
	SessionTimeout time.Duration
	// HeartbeatInterval is heartbeat.interval.ms (classic), the group's
	// group.consumer.heartbeat.interval.ms (consumer protocol).
	HeartbeatInterval time.Duration
	// MaxPollInterval is max.poll.interval.ms.
	MaxPollInterval time.Duration
	// AutoCommitInterval is auto.commit.interval.ms.
	AutoCommitInterval time.Duration
	// MaxPollRecords is max.poll.records.
	MaxPollRecords int
	// InstanceID is group.instance.id (static membership: the member's
	// name); empty, a dynamic member has none.
	InstanceID string
}

// Settings returns every setting of c, by Kafka name, sorted. Under the
// classic protocol the client states its assignor
// (partition.assignment.strategy) and its session timings. Under the
// consumer protocol (KIP-848) the broker assigns and owns the session
// timings: the client states group.protocol=consumer and the broker's
// assignor (group.remote.assignor), and may not set session.timeout.ms,
// heartbeat.interval.ms nor partition.assignment.strategy; the timings
// go to the group instead, as group.consumer.session.timeout.ms and
// group.consumer.heartbeat.interval.ms.
//
// partition.assignment.strategy is the strategy's name, which is
// librdkafka's value for it (librdkafka has no eager sticky; Kafka's Java
// client takes the assignor's class, Strategy.Assignor).
func (c ConsumerConfig) Settings() Settings {
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	ss := Settings{
		{SettingMaxPollInterval, ms(c.MaxPollInterval), InClient},
		{SettingMaxPollRecords, strconv.Itoa(c.MaxPollRecords), InClient},
		{SettingAutoCommitInterval, ms(c.AutoCommitInterval), InClient},
	}
	if st, ok := LookupStrategy(c.Strategy); ok && st.Protocol == Consumer {
		ss = append(ss,
			Setting{SettingGroupProtocol, string(Consumer), InClient},
			Setting{SettingRemoteAssignor, st.Assignor, InClient},
			Setting{SettingGroupSessionTimeout, ms(c.SessionTimeout), InGroup},
			Setting{SettingGroupHeartbeatInterval, ms(c.HeartbeatInterval), InGroup},
		)
	} else {
		ss = append(ss,
			Setting{SettingGroupProtocol, string(Classic), InClient},
			Setting{SettingAssignmentStrategy, c.Strategy, InClient},
			Setting{SettingSessionTimeout, ms(c.SessionTimeout), InClient},
			Setting{SettingHeartbeatInterval, ms(c.HeartbeatInterval), InClient},
		)
	}
	if c.InstanceID != "" {
		ss = append(ss, Setting{SettingInstanceID, c.InstanceID, InClient})
	}
	slices.SortFunc(ss, func(a, b Setting) int { return strings.Compare(a.Name, b.Name) })
	return ss
}
