package chaosbench.member;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consumer's properties for a member, by Kafka name, and the check
 * that Kafka's Java client accepts them. The consumer settings, and which
 * of them are the client's under each group protocol, are stated on the
 * Go side (member.Config.ConsumerSettings, from internal/vocab), which
 * makes the Go members' configurations; this member applies the same
 * ones as the properties of the same names, and its contract test
 * (TestJavaConsumerSettings) holds what of() gives to exactly them plus
 * the member's own (where it connects, who it is, the commit policy's
 * auto-commit). -X properties pass through unchanged, last.
 */
final class Settings {
    private Settings() {}

    /** A strategy as this client runs it; internal/vocab states the same facts. */
    record Strategy(String name, boolean consumerProtocol, boolean eager, String assignor) {}

    /**
     * The six strategies: the classic ones by their assignor classes
     * (partition.assignment.strategy), the consumer protocol's by the
     * broker's assignor names (group.remote.assignor). The contract test
     * holds them to internal/vocab's.
     */
    static final List<Strategy> STRATEGIES = List.of(
        new Strategy("range", false, true, RangeAssignor.class.getName()),
        new Strategy("roundrobin", false, true, RoundRobinAssignor.class.getName()),
        new Strategy("sticky", false, true, StickyAssignor.class.getName()),
        new Strategy("cooperative-sticky", false, false, CooperativeStickyAssignor.class.getName()),
        new Strategy("consumer-uniform", true, false, "uniform"),
        new Strategy("consumer-range", true, false, "range"));

    static Strategy strategy(String name) {
        for (Strategy s : STRATEGIES) {
            if (s.name.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("--strategy " + Config.quote(name) + ": not a strategy of the java client");
    }

    /** Whether the policy lets the client commit by itself (vocab: Policy.AutoCommit). */
    static boolean autoCommit(String policy) {
        return policy.equals("auto") || policy.equals("auto-after-process");
    }

    /**
     * The transactional policy's producer: where it connects (the -X
     * properties a producer has), who it is, its transactional.id and
     * transaction.timeout.ms.
     */
    static Map<String, Object> producerOf(Config c) {
        Map<String, Object> p = new TreeMap<>();
        c.props.forEach((k, v) -> {
            if (org.apache.kafka.clients.producer.ProducerConfig.configNames().contains(k)) {
                p.put(k, v);
            }
        });
        p.put(org.apache.kafka.clients.producer.ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, c.bootstrap);
        p.put(org.apache.kafka.clients.producer.ProducerConfig.CLIENT_ID_CONFIG, c.clientId() + "-txn");
        p.put(org.apache.kafka.clients.producer.ProducerConfig.TRANSACTIONAL_ID_CONFIG, c.transactionalId);
        p.put(org.apache.kafka.clients.producer.ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, ms(c.transactionTimeoutNs));
        p.put(org.apache.kafka.clients.producer.ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        p.put(org.apache.kafka.clients.producer.ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, org.apache.kafka.common.serialization.ByteArraySerializer.class.getName());
        p.put(org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG, "5");
        return p;
    }

    /** The consumer's properties, -X last. */
    static Map<String, Object> of(Config c) {
        Strategy st = strategy(c.strategy);
        Map<String, Object> p = new TreeMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, c.bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, c.group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, c.clientId());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(c.maxPollRecords));
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, ms(c.maxPollIntervalNs));
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, Boolean.toString(autoCommit(c.policy)));
        p.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, ms(c.autoCommitIntervalNs));
        if (st.consumerProtocol) {
            // KIP-848: the broker assigns and owns the session timings
            // (the group's, set by the driver); the client refuses
            // session.timeout.ms, heartbeat.interval.ms and
            // partition.assignment.strategy with this protocol.
            p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, st.assignor);
        } else {
            p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, st.assignor);
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ms(c.sessionTimeoutNs));
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ms(c.heartbeatIntervalNs));
        }
        if (c.staticMembership) {
            p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, c.name);
        }
        if (autoCommit(c.policy)) {
            // The library's own commits are seen only through an interceptor.
            p.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, CommitRecorder.class.getName());
        }
        if (c.policy.equals("transactional")) {
            // The input as a downstream reader of committed data reads it.
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        }
        p.putAll(c.props);
        if (autoCommit(c.policy) && c.props.containsKey(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG)) {
            // The member's recorder goes first, the -X ones after it.
            p.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG,
                CommitRecorder.class.getName() + "," + c.props.get(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG));
        }
        return p;
    }

    /**
     * Rejects -X properties the Java client does not know by name. Kafka's
     * own config only logs unknown names, which would let a misspelt or
     * librdkafka-only property change nothing without a word.
     */
    static void checkNames(Config c) {
        Set<String> known = ConsumerConfig.configNames();
        List<String> unknown = new ArrayList<>();
        for (String k : c.props.keySet()) {
            if (!known.contains(k)) {
                unknown.add(k);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("-X " + String.join(", -X ", unknown)
                + ": not a property of Kafka's Java consumer (kafka-clients " + version()
                + "); expected a ConsumerConfig name, e.g. fetch.max.wait.ms or security.protocol");
        }
    }

    /** kafka-clients' version, from the properties file its jar carries. */
    static String version() {
        try (java.io.InputStream in = ConsumerConfig.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    private static String ms(long ns) {
        return Long.toString(TimeUnit.NANOSECONDS.toMillis(ns));
    }
}
