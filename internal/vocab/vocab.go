// Package vocab is the vocabulary chaosbench measures in: the partition
// assignment strategies, the offset-commit policies and the client
// libraries, with the facts about each that the rest of the project acts
// on (which group protocol a strategy runs, which clients implement it,
// what a commit policy guarantees, which Kafka settings a member's
// configuration becomes under each protocol, and where each goes:
// settings.go). They are written here once, as data:
// workload validation, the members, the checkers, the reports and the
// make targets all read them from this package, so adding a client or a
// strategy is one entry here plus the code that runs it.
//
// The package imports only the standard library: the pure core
// (workloads, check, report) can use it without reaching a Kafka client.
package vocab

// Protocol is the consumer-group protocol a strategy runs under.
type Protocol string

const (
	// Classic is the JoinGroup/SyncGroup protocol: the group's leader, a
	// client, computes the assignment with the strategy's assignor.
	Classic Protocol = "classic"
	// Consumer is KIP-848's protocol (group.protocol=consumer, Kafka 4):
	// the broker computes the assignment with a server-side assignor
	// (group.remote.assignor), and members take partitions incrementally.
	Consumer Protocol = "consumer"
)

// Style is how a rebalance hands partitions over.
type Style string

const (
	// Eager: every member gives up every partition before the new
	// assignment is handed out; the group stops for the whole rebalance.
	Eager Style = "eager"
	// Incremental: only the partitions that move are revoked; the rest go
	// on being processed.
	Incremental Style = "incremental"
)

// Strategy names.
const (
	Range             = "range"
	RoundRobin        = "roundrobin"
	Sticky            = "sticky"
	CooperativeSticky = "cooperative-sticky"
	ConsumerUniform   = "consumer-uniform"
	ConsumerRange     = "consumer-range"
)

// Strategy is a partition assignment strategy.
type Strategy struct {
	Name     string
	Protocol Protocol
	Style    Style
	// Assignor is what Kafka calls it: the Java assignor class of a
	// classic strategy (partition.assignment.strategy), the server-side
	// assignor of a consumer-protocol one (group.remote.assignor).
	Assignor string
}

// strategies, in report order: the classic eager assignors, then the
// incremental ones, then the consumer protocol's.
var strategies = []Strategy{
	{Range, Classic, Eager, "org.apache.kafka.clients.consumer.RangeAssignor"},
	{RoundRobin, Classic, Eager, "org.apache.kafka.clients.consumer.RoundRobinAssignor"},
	{Sticky, Classic, Eager, "org.apache.kafka.clients.consumer.StickyAssignor"},
	{CooperativeSticky, Classic, Incremental, "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"},
	{ConsumerUniform, Consumer, Incremental, "uniform"},
	{ConsumerRange, Consumer, Incremental, "range"},
}

// Strategies returns every strategy, in report order.
func Strategies() []Strategy { return append([]Strategy(nil), strategies...) }

// StrategyNames returns the strategies' names, in report order.
func StrategyNames() []string { return names(strategies, func(s Strategy) string { return s.Name }) }

// LookupStrategy returns the strategy of that name.
func LookupStrategy(name string) (Strategy, bool) {
	return lookup(strategies, name, func(s Strategy) string { return s.Name })
}

// IsConsumerProtocol reports whether a strategy runs the consumer
// protocol (KIP-848), where the broker assigns partitions and the
// session and heartbeat timings are the broker's.
func IsConsumerProtocol(strategy string) bool {
	s, ok := LookupStrategy(strategy)
	return ok && s.Protocol == Consumer
}

// StrategyRank is a strategy's place in report order; unknown names come
// last.
func StrategyRank(name string) int {
	return rank(strategies, name, func(s Strategy) string { return s.Name })
}

// Guarantees a commit policy promises.
const (
	AtLeastOnce = "at-least-once"
	AtMostOnce  = "at-most-once"
	// ExactlyOnce: every acknowledged input appears exactly once in the
	// committed output of a consume-transform-produce member, whose
	// offsets are committed inside its producer transaction. Processing
	// may be repeated (an aborted transaction's work is redone); the
	// output read with isolation.level=read_committed may not.
	ExactlyOnce = "exactly-once"
	NoGuarantee = "none"
	// UnknownGuarantee is the guarantee of a policy this vocabulary does
	// not know (a history from another version): nothing can be checked.
	UnknownGuarantee = "unknown"
)

// Commit policy names.
const (
	PolicyAuto              = "auto"
	PolicyAutoAfterProcess  = "auto-after-process"
	PolicySyncBatch         = "sync-batch"
	PolicyAsyncBatch        = "async-batch"
	PolicyAsyncSyncOnRevoke = "async-sync-on-revoke"
	PolicyCommitFirst       = "commit-before-process"
	PolicyTransactional     = "transactional"
)

// Policy is an offset-commit policy: when a member commits, relative to
// processing (docs/members.md says how each client carries it out).
type Policy struct {
	Name string
	// Guarantee is what the policy promises across a crash: AtLeastOnce,
	// AtMostOnce or NoGuarantee. The checkers judge loss and duplicates
	// against it.
	Guarantee string
	// AutoCommit: the client commits by itself (enable.auto.commit=true).
	AutoCommit bool
	// Does says what the member does.
	Does string
}

var policies = []Policy{
	{PolicyAuto, NoGuarantee, true, "library auto-commit; the offset is stored when the record is handed to the application"},
	{PolicyAutoAfterProcess, AtLeastOnce, true, "library auto-commit; the offset is stored only after the record is processed"},
	{PolicySyncBatch, AtLeastOnce, false, "a synchronous commit after each processed batch"},
	{PolicyAsyncBatch, AtLeastOnce, false, "an asynchronous commit after each processed batch"},
	{PolicyAsyncSyncOnRevoke, AtLeastOnce, false, "asynchronous per batch, synchronous on revoke and on shutdown"},
	{PolicyCommitFirst, AtMostOnce, false, "commit the batch, then process it"},
	{PolicyTransactional, ExactlyOnce, false, "consume-transform-produce: one output record per input to the output topic, the input offsets sent to the same producer transaction with the group's metadata (KIP-447), then the transaction committed"},
}

// IsTransactional reports whether a commit policy produces its output in
// transactions (and a cell of it has an output topic to verify).
func IsTransactional(policy string) bool { return policy == PolicyTransactional }

// Policies returns every commit policy, in report order.
func Policies() []Policy { return append([]Policy(nil), policies...) }

// PolicyNames returns the commit policies' names, in report order.
func PolicyNames() []string { return names(policies, func(p Policy) string { return p.Name }) }

// LookupPolicy returns the commit policy of that name.
func LookupPolicy(name string) (Policy, bool) {
	return lookup(policies, name, func(p Policy) string { return p.Name })
}

// GuaranteeOf returns what a commit policy promises, UnknownGuarantee for
// a name this vocabulary does not know.
func GuaranteeOf(policy string) string {
	if p, ok := LookupPolicy(policy); ok {
		return p.Guarantee
	}
	return UnknownGuarantee
}

// PolicyRank is a policy's place in report order; unknown names come last.
func PolicyRank(name string) int {
	return rank(policies, name, func(p Policy) string { return p.Name })
}

// Client names.
const (
	ClientConfluent = "confluent"
	ClientFranz     = "franz"
	ClientJava      = "java"
)

// Client is a Kafka client library a member (and possibly the producer)
// runs on.
type Client struct {
	Name    string
	Library string
	// Lacks lists the strategies the client does not implement, each with
	// the reason a user is told.
	Lacks map[string]string
	// Producer: the load generator can produce with it.
	Producer bool
	// LacksPolicies lists the commit policies a member on the client
	// does not implement, each with the reason a user is told.
	LacksPolicies map[string]string
}

// clients, in order of preference: a strategy's default client is the
// first that implements it.
var clients = []Client{
	{Name: ClientConfluent, Library: "confluent-kafka-go (librdkafka)", Producer: true,
		Lacks: map[string]string{Sticky: "librdkafka has no eager sticky assignor (only cooperative-sticky); run sticky on franz"}},
	{Name: ClientFranz, Library: "franz-go", Producer: true},
	{Name: ClientJava, Library: "kafka-clients (Apache Kafka's Java client)"},
}

// Clients returns every client, in order of preference.
func Clients() []Client { return append([]Client(nil), clients...) }

// ClientNames returns the clients' names, in order of preference.
func ClientNames() []string { return names(clients, func(c Client) string { return c.Name }) }

// ProducerClientNames returns the names of the clients the load generator
// can produce with.
func ProducerClientNames() []string {
	var out []string
	for _, c := range clients {
		if c.Producer {
			out = append(out, c.Name)
		}
	}
	return out
}

// LookupClient returns the client of that name.
func LookupClient(name string) (Client, bool) {
	return lookup(clients, name, func(c Client) string { return c.Name })
}

// Supports reports whether a client implements a strategy; when it does
// not, why says so (empty for names this vocabulary does not know).
func Supports(client, strategy string) (ok bool, why string) {
	c, known := LookupClient(client)
	if _, s := LookupStrategy(strategy); !known || !s {
		return false, ""
	}
	if why, lacks := c.Lacks[strategy]; lacks {
		return false, why
	}
	return true, ""
}

// SupportsPolicy reports whether a member on the client implements the
// commit policy, and why not when it does not (why is empty for an
// unknown client or policy).
func SupportsPolicy(client, policy string) (ok bool, why string) {
	c, known := LookupClient(client)
	if _, p := LookupPolicy(policy); !known || !p {
		return false, ""
	}
	if why, lacks := c.LacksPolicies[policy]; lacks {
		return false, why
	}
	return true, ""
}

// DefaultClient returns the client a strategy runs on when none is named:
// the first client, in order of preference, that implements it (franz
// for sticky, confluent for every other).
func DefaultClient(strategy string) string {
	for _, c := range clients {
		if ok, _ := Supports(c.Name, strategy); ok {
			return c.Name
		}
	}
	return ""
}

// ClientRank is a client's place in order of preference; unknown names
// come last.
func ClientRank(name string) int { return rank(clients, name, func(c Client) string { return c.Name }) }

// Chaos action names: the steps of a workload's chaos plan, and the
// history's chaos events.
const (
	ActionKill           = "kill"
	ActionStop           = "stop"
	ActionAdd            = "add"
	ActionPause          = "pause"
	ActionSlow           = "slow"
	ActionRestart        = "restart"
	ActionRollingRestart = "rolling_restart"
	ActionAddPartitions  = "add_partitions"
	ActionBrokerKill     = "broker_kill"
	ActionBrokerRestart  = "broker_restart"
	ActionDisconnect     = "disconnect"
	ActionReset          = "reset"
	ActionLatency        = "latency"
	ActionBandwidth      = "bandwidth"
	// ActionResume is not a step: the driver records it when a pause
	// ends (SIGCONT).
	ActionResume = "resume"
	// ActionHeal is not a step: the driver records it when a network
	// step's fault ends (the target's path carries traffic again).
	ActionHeal = "heal"
)

// Action is a chaos action.
type Action struct {
	Name string
	// Stops: the target member stops processing when the action takes
	// effect (its partitions pause from the action's event on).
	Stops bool
	// Ends: the target member's process is gone (it holds nothing after).
	Ends bool
	// Network: the action acts on the target's network path (a member's
	// or the producer's) or on a broker's links to the other brokers, for
	// a duration, and ends with a heal event. Stops holds for a member
	// target only: a broker cut off stops no member.
	Network bool
	// Does says what the driver does.
	Does string
}

var actions = []Action{
	{ActionKill, true, true, false, "SIGKILL a member: a crash, no LeaveGroup"},
	{ActionStop, true, true, false, "SIGTERM a member: final commit, LeaveGroup, exit"},
	{ActionAdd, false, false, false, "start new members"},
	{ActionPause, true, false, false, "SIGSTOP a member, SIGCONT after the duration"},
	{ActionSlow, true, false, false, "stall a member's processing for the duration"},
	{ActionRestart, true, false, false, "stop a member and start its next incarnation"},
	{ActionRollingRestart, false, false, false, "restart every member, one after another"},
	{ActionAddPartitions, false, false, false, "grow the topic's partition count"},
	{ActionBrokerKill, false, false, false, "SIGKILL a broker"},
	{ActionBrokerRestart, false, false, false, "start a killed broker again"},
	{ActionDisconnect, true, false, true, "blackhole a process's connections to the brokers, or a broker's to the other brokers, for the duration"},
	{ActionReset, true, false, true, "reset a process's connections to the brokers (or a broker's to the others), and every new one, for the duration"},
	{ActionLatency, false, false, true, "delay a process's traffic to and from the brokers (or a broker's to and from the others) for the duration"},
	{ActionBandwidth, false, false, true, "limit a process's bandwidth to the brokers (or a broker's to the others) for the duration"},
}

// Actions returns every chaos action a workload can schedule.
func Actions() []Action { return append([]Action(nil), actions...) }

// ActionNames returns the chaos actions' names.
func ActionNames() []string { return names(actions, func(a Action) string { return a.Name }) }

// LookupAction returns the chaos action of that name.
func LookupAction(name string) (Action, bool) {
	return lookup(actions, name, func(a Action) string { return a.Name })
}

func names[T any](list []T, name func(T) string) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = name(v)
	}
	return out
}

func lookup[T any](list []T, want string, name func(T) string) (T, bool) {
	for _, v := range list {
		if name(v) == want {
			return v, true
		}
	}
	var zero T
	return zero, false
}

func rank[T any](list []T, want string, name func(T) string) int {
	for i, v := range list {
		if name(v) == want {
			return i
		}
	}
	return len(list)
}
