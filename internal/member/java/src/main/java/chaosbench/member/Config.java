package chaosbench.member;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One member incarnation, as the Go member's contract (member.Config in
 * internal/member/config.go) describes it. The Go side validates the
 * configuration, fills its defaults and renders every flag (Config.Args),
 * so this side states no default of its own: a flag that is missing is an
 * error, never a silently different setting.
 */
final class Config {
    String name;
    int inc;
    String historyDir;
    String bootstrap;
    /** Client properties (-X key=value), Kafka names, passed through. */
    final Map<String, String> props = new TreeMap<>();
    String group;
    String topic;
    String client;
    String strategy;
    String policy;
    long processingCostNs;
    String processingDistribution;
    long processingJitterNs;
    long seed;
    int maxPollRecords;
    long sessionTimeoutNs;
    long heartbeatIntervalNs;
    long maxPollIntervalNs;
    long autoCommitIntervalNs;
    boolean staticMembership;
    boolean control;
    /** The driver's control endpoint, host:port (empty: no network channel). */
    String controlAddr;
    /** The run's token for the control endpoint: from the environment (Control.TOKEN_ENV), never a flag. */
    String controlToken = "";
    String outputTopic;
    String transactionalId;
    long transactionTimeoutNs;
    int commitRecords;
    long commitIntervalNs;
    /** The driver's time endpoint (empty: the clock is not measured). */
    String clockUrl;
    /** Testing only: added to every time the member stamps. */
    long clockSkewNs;
    /**
     * Where the history goes (member.Config.HistorySink): its file, the
     * history topic (TopicSink) or both; the topic and its cluster.
     */
    String historySink;
    String historyTopic;
    String historyBootstrap;

    /** The kind of value a flag takes. */
    private enum Kind { STRING, INT, LONG, DURATION, BOOL }

    /** A flag: its name as the Go side renders it, its kind, its field. */
    private record Flag(String name, Kind kind, Setter set, Getter get) {}

    private interface Setter { void set(Config c, String v); }
    private interface Getter { Object get(Config c); }

    /** The flags, by their Go names (member.Config.Flags). */
    private static final List<Flag> FLAGS = List.of(
        new Flag("name", Kind.STRING, (c, v) -> c.name = v, c -> c.name),
        new Flag("inc", Kind.INT, (c, v) -> c.inc = parseInt("inc", v), c -> c.inc),
        new Flag("history-dir", Kind.STRING, (c, v) -> c.historyDir = v, c -> c.historyDir),
        new Flag("bootstrap", Kind.STRING, (c, v) -> c.bootstrap = v, c -> c.bootstrap),
        new Flag("group", Kind.STRING, (c, v) -> c.group = v, c -> c.group),
        new Flag("topic", Kind.STRING, (c, v) -> c.topic = v, c -> c.topic),
        new Flag("strategy", Kind.STRING, (c, v) -> c.strategy = v, c -> c.strategy),
        new Flag("client", Kind.STRING, (c, v) -> c.client = v, c -> c.client),
        new Flag("policy", Kind.STRING, (c, v) -> c.policy = v, c -> c.policy),
        new Flag("processing-cost", Kind.DURATION, (c, v) -> c.processingCostNs = duration("processing-cost", v), c -> c.processingCostNs),
        new Flag("processing-distribution", Kind.STRING, (c, v) -> c.processingDistribution = v, c -> c.processingDistribution),
        new Flag("processing-jitter", Kind.DURATION, (c, v) -> c.processingJitterNs = duration("processing-jitter", v), c -> c.processingJitterNs),
        new Flag("seed", Kind.LONG, (c, v) -> c.seed = parseLong("seed", v), c -> c.seed),
        new Flag("max-poll-records", Kind.INT, (c, v) -> c.maxPollRecords = parseInt("max-poll-records", v), c -> c.maxPollRecords),
        new Flag("session-timeout", Kind.DURATION, (c, v) -> c.sessionTimeoutNs = duration("session-timeout", v), c -> c.sessionTimeoutNs),
        new Flag("heartbeat-interval", Kind.DURATION, (c, v) -> c.heartbeatIntervalNs = duration("heartbeat-interval", v), c -> c.heartbeatIntervalNs),
        new Flag("max-poll-interval", Kind.DURATION, (c, v) -> c.maxPollIntervalNs = duration("max-poll-interval", v), c -> c.maxPollIntervalNs),
        new Flag("auto-commit-interval", Kind.DURATION, (c, v) -> c.autoCommitIntervalNs = duration("auto-commit-interval", v), c -> c.autoCommitIntervalNs),
        new Flag("static", Kind.BOOL, (c, v) -> c.staticMembership = bool("static", v), c -> c.staticMembership),
        new Flag("control-stdin", Kind.BOOL, (c, v) -> c.control = bool("control-stdin", v), c -> c.control),
        new Flag("control-addr", Kind.STRING, (c, v) -> c.controlAddr = v, c -> c.controlAddr),
        new Flag("output-topic", Kind.STRING, (c, v) -> c.outputTopic = v, c -> c.outputTopic),
        new Flag("transactional-id", Kind.STRING, (c, v) -> c.transactionalId = v, c -> c.transactionalId),
        new Flag("transaction-timeout", Kind.DURATION, (c, v) -> c.transactionTimeoutNs = duration("transaction-timeout", v), c -> c.transactionTimeoutNs),
        new Flag("commit-records", Kind.INT, (c, v) -> c.commitRecords = parseInt("commit-records", v), c -> c.commitRecords),
        new Flag("commit-interval", Kind.DURATION, (c, v) -> c.commitIntervalNs = duration("commit-interval", v), c -> c.commitIntervalNs),
        new Flag("clock-url", Kind.STRING, (c, v) -> c.clockUrl = v, c -> c.clockUrl),
        new Flag("clock-skew", Kind.DURATION, (c, v) -> c.clockSkewNs = duration("clock-skew", v), c -> c.clockSkewNs),
        new Flag("history-sink", Kind.STRING, (c, v) -> c.historySink = v, c -> c.historySink),
        new Flag("history-topic", Kind.STRING, (c, v) -> c.historyTopic = v, c -> c.historyTopic),
        new Flag("history-bootstrap", Kind.STRING, (c, v) -> c.historyBootstrap = v, c -> c.historyBootstrap));

    /**
     * Parses the flags as Go's flag package reads them: -name=value,
     * --name=value, -name value, a bare boolean flag, and -X key=value
     * repeated. Every flag but -X must be given.
     */
    static Config parse(String[] args) {
        Config c = new Config();
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("-") || a.equals("-") || a.equals("--")) {
                throw new IllegalArgumentException("unexpected argument " + quote(a));
            }
            String body = a.startsWith("--") ? a.substring(2) : a.substring(1);
            String fname = body;
            String value = null;
            int eq = body.indexOf('=');
            if (eq >= 0) {
                fname = body.substring(0, eq);
                value = body.substring(eq + 1);
            }
            if (fname.equals("X")) {
                if (value == null) {
                    if (++i == args.length) {
                        throw new IllegalArgumentException("flag needs an argument: -X");
                    }
                    value = args[i];
                }
                c.setProp(value);
                continue;
            }
            Flag f = lookup(fname);
            if (value == null) {
                if (f.kind == Kind.BOOL) {
                    value = "true";
                } else if (++i == args.length) {
                    throw new IllegalArgumentException("flag needs an argument: -" + fname);
                } else {
                    value = args[i];
                }
            }
            f.set.set(c, value);
            seen.add(fname);
        }
        List<String> missing = new ArrayList<>();
        for (Flag f : FLAGS) {
            if (!seen.contains(f.name)) {
                missing.add("--" + f.name);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("missing " + String.join(", ", missing)
                + ": the Go member renders every flag (member.Config.Args)");
        }
        switch (c.historySink) {
            case "", "file" -> { }
            case "topic", "tee" -> {
                if (c.historyTopic.isEmpty() || c.historyBootstrap.isEmpty()) {
                    throw new IllegalArgumentException("--history-sink " + c.historySink
                        + ": needs --history-topic and --history-bootstrap");
                }
            }
            default -> throw new IllegalArgumentException("--history-sink " + quote(c.historySink) + ": expected file, topic or tee");
        }
        return c;
    }

    private static Flag lookup(String name) {
        for (Flag f : FLAGS) {
            if (f.name.equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("flag provided but not defined: -" + name);
    }

    /**
     * readSecrets adds the secret properties the driver passes in the
     * environment (member.SecretsEnv, a JSON object: member.Config.Env),
     * never on the command line; a property given with -X keeps its value.
     */
    void readSecrets(String json) {
        if (json == null) {
            return;
        }
        Map<String, String> secrets;
        try {
            secrets = Json.decodeStrings(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SECRETS_ENV + ": expected a JSON object of properties");
        }
        secrets.forEach(props::putIfAbsent);
    }

    /** The environment variable of the secret properties (member.SecretsEnv). */
    static final String SECRETS_ENV = "CHAOSBENCH_MEMBER_SECRETS";

    /** setProp reads one key=value as kafkaconf.ParseProp does. */
    private void setProp(String s) {
        int eq = s.indexOf('=');
        String k = eq < 0 ? "" : s.substring(0, eq).strip();
        if (eq < 0 || k.isEmpty()) {
            throw new IllegalArgumentException("-X " + quote(s) + ": expected key=value, e.g. -X security.protocol=SASL_SSL");
        }
        props.put(k, s.substring(eq + 1));
    }

    /** The client id, as the Go members set it: the prefix of the member id the coordinator gives. */
    String clientId() {
        return name + "." + inc;
    }

    /**
     * This side's view of the flags, for the contract test: each flag by its
     * Go name, durations in nanoseconds, and -X as an object.
     */
    Map<String, Object> view() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Flag f : FLAGS) {
            out.put(f.name, f.get.get(this));
        }
        out.put("X", new TreeMap<>(props));
        return out;
    }

    private static int parseInt(String flag, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value " + quote(v) + " for flag -" + flag + ": expected an integer");
        }
    }

    private static long parseLong(String flag, String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value " + quote(v) + " for flag -" + flag + ": expected an integer");
        }
    }

    /** Go's strconv.ParseBool. */
    private static boolean bool(String flag, String v) {
        switch (v) {
            case "1", "t", "T", "true", "TRUE", "True":
                return true;
            case "0", "f", "F", "false", "FALSE", "False":
                return false;
            default:
                throw new IllegalArgumentException("invalid boolean value " + quote(v) + " for -" + flag);
        }
    }

    private static long duration(String flag, String v) {
        try {
            return GoDuration.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid value " + quote(v) + " for flag -" + flag + ": " + e.getMessage());
        }
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
