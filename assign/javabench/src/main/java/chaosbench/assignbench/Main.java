package chaosbench.assignbench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * Runs Kafka's own assignors on the cases chaosbench's Go side wrote, and
 * prints either their times or their assignments (see assign/README.md).
 *
 * <pre>
 * Main time|dump CASES_FILE STRATEGY[,STRATEGY...] WARMUP_MS RUNS MEASURE_MS MAX_RUNS
 * </pre>
 *
 * The cases file is line based:
 * <pre>
 * case NAME
 * topic NAME PARTITIONS
 * member ID INSTANCE_ID|- TOPIC[,TOPIC...] [TOPIC:P,P,...]...
 * end
 * </pre>
 *
 * Output lines: {@code time CASE STRATEGY MEDIAN_NS MIN_NS RUNS WARMUP_MS},
 * {@code assignment CASE STRATEGY MEMBER [TOPIC:P,P,...]...} (sorted), or
 * {@code error CASE STRATEGY MESSAGE}.
 */
public final class Main {

    static final class Member {
        final String id;
        final Optional<String> instanceId;
        final List<String> topics;
        final Map<String, List<Integer>> owned; // topic -> partitions, topics sorted

        Member(String id, Optional<String> instanceId, List<String> topics, Map<String, List<Integer>> owned) {
            this.id = id;
            this.instanceId = instanceId;
            this.topics = topics;
            this.owned = owned;
        }

        List<TopicPartition> ownedPartitions() {
            List<TopicPartition> out = new ArrayList<>();
            owned.forEach((t, ps) -> ps.forEach(p -> out.add(new TopicPartition(t, p))));
            return out;
        }
    }

    static final class Case {
        final String name;
        final Map<String, Integer> topics = new TreeMap<>();
        final List<Member> members = new ArrayList<>();

        Case(String name) {
            this.name = name;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: Main time|dump CASES_FILE STRATEGY[,STRATEGY...] WARMUP_MS RUNS MEASURE_MS MAX_RUNS");
            System.exit(2);
        }
        String mode = args[0];
        List<Case> cases = read(Path.of(args[1]));
        List<String> strategies = Arrays.asList(args[2].split(","));
        long warmupMillis = Long.parseLong(args[3]);
        int runs = Integer.parseInt(args[4]);
        long measureMillis = Long.parseLong(args[5]);
        int maxRuns = Integer.parseInt(args[6]);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        for (Case c : cases) {
            for (String strategy : strategies) {
                try {
                    if (mode.equals("dump")) {
                        dump(out, c, strategy, run(c, strategy));
                    } else {
                        time(out, c, strategy, warmupMillis, runs, measureMillis, maxRuns);
                    }
                } catch (Exception | StackOverflowError e) {
                    out.println("error " + c.name + " " + strategy + " " + e.toString().replace('\n', ' '));
                }
                out.flush();
            }
        }
        out.flush();
    }

    /** How long the JIT compiler must have been idle to end the warm-up. */
    static final long JIT_QUIET_NANOS = 2_000_000_000L;

    /** The warm-up runs in blocks of about this long (at least one run). */
    static final long BLOCK_NANOS = 250_000_000L;

    /** Blocks in a row whose median must not beat the best by 5% to end the warm-up. */
    static final int STEADY_BLOCKS = 4;

    /** The longest warm-up, whatever the JIT compiler does. */
    static final long MAX_WARMUP_NANOS = 60_000_000_000L;

    /**
     * Warms up (at least two runs) until all of these hold: warmupMillis
     * have passed; the JIT compiler has finished no compilation for two
     * seconds; and the median run time of blocks of runs (a quarter of a
     * second each) has not improved by 5% for four blocks in a row. It
     * stops after a minute whatever happens. A busy machine starves the
     * compiler threads, so that a fixed warm-up can end with the assignor
     * still interpreted or half-compiled. Then it times single runs, at
     * least runs of them and more for measureMillis (up to maxRuns), and
     * prints their median, minimum and quartiles. Only the assignor's call is timed,
     * not the preparation of its input.
     */
    static void time(PrintStream out, Case c, String strategy, long warmupMillis, int runs, long measureMillis, int maxRuns) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean monitored = jit != null && jit.isCompilationTimeMonitoringSupported();
        long begin = System.nanoTime();
        long lastCompilation = monitored ? jit.getTotalCompilationTime() : 0;
        long quietSince = begin;
        long best = Long.MAX_VALUE;
        int steady = 0;
        int total = 0;
        long[] block = new long[16];
        while (true) {
            int n = 0;
            long blockStart = System.nanoTime();
            do {
                Runnable r = prepare(c, strategy);
                long start = System.nanoTime();
                r.run();
                if (n == block.length) {
                    block = Arrays.copyOf(block, 2 * n);
                }
                block[n++] = System.nanoTime() - start;
            } while (System.nanoTime() - blockStart < BLOCK_NANOS);
            total += n;
            Arrays.sort(block, 0, n);
            long median = block[n / 2];
            if (median < best * 0.95) {
                best = median;
                steady = 0;
            } else {
                steady++;
            }
            long now = System.nanoTime();
            if (monitored) {
                long compiled = jit.getTotalCompilationTime();
                if (compiled != lastCompilation) {
                    lastCompilation = compiled;
                    quietSince = now;
                }
            }
            boolean warm = total >= 2 && now - begin >= warmupMillis * 1_000_000L
                && now - quietSince >= JIT_QUIET_NANOS && steady >= STEADY_BLOCKS;
            if (warm || now - begin >= MAX_WARMUP_NANOS) {
                break;
            }
        }
        long warmedMillis = (System.nanoTime() - begin) / 1_000_000L;
        long[] ns = new long[Math.max(runs, 16)];
        int n = 0;
        long until = System.nanoTime() + measureMillis * 1_000_000L;
        while (n < runs || n < maxRuns && System.nanoTime() < until) {
            Runnable r = prepare(c, strategy);
            long start = System.nanoTime();
            r.run();
            long elapsed = System.nanoTime() - start;
            if (n == ns.length) {
                ns = Arrays.copyOf(ns, 2 * n);
            }
            ns[n++] = elapsed;
        }
        ns = Arrays.copyOf(ns, n);
        Arrays.sort(ns);
        out.println("time " + c.name + " " + strategy + " " + ns[n / 2] + " " + ns[0] + " " + n + " " + warmedMillis
            + " " + ns[n / 4] + " " + ns[(3 * n) / 4]);
    }

    /** The assignment of one run, member -> topic -> partitions. */
    static Map<String, Map<String, TreeSet<Integer>>> run(Case c, String strategy) {
        Map<String, Map<String, TreeSet<Integer>>> result = new TreeMap<>();
        for (Member m : c.members) {
            result.put(m.id, new TreeMap<>());
        }
        Holder h = new Holder();
        prepare(c, strategy, h).run();
        if (h.classic != null) {
            h.classic.forEach((member, tps) -> tps.forEach(tp ->
                result.get(member).computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition())));
        } else {
            Map<Uuid, String> names = topicNames(c);
            h.consumer.members().forEach((member, a) -> a.partitions().forEach((id, ps) ->
                result.get(member).computeIfAbsent(names.get(id), t -> new TreeSet<>()).addAll(ps)));
        }
        return result;
    }

    static final class Holder {
        Map<String, List<TopicPartition>> classic;
        GroupAssignment consumer;
    }

    static Runnable prepare(Case c, String strategy) {
        return prepare(c, strategy, new Holder());
    }

    /**
     * Builds the assignor's input (not timed) and returns the call to time.
     * Inputs are built afresh for every run: the sticky assignor reads its
     * members' user data buffers.
     */
    static Runnable prepare(Case c, String strategy, Holder h) {
        switch (strategy) {
            case "range":
                return classic(c, new RangeAssignor(), h, false, false);
            case "roundrobin":
                return classic(c, new RoundRobinAssignor(), h, false, false);
            case "sticky":
                return classic(c, new StickyAssignor(), h, true, false);
            case "cooperative-sticky":
                return classic(c, new CooperativeStickyAssignor(), h, false, true);
            case "consumer-uniform":
                return consumer(c, new UniformAssignor(), h);
            case "consumer-range":
                return consumer(c, new org.apache.kafka.coordinator.group.assignor.RangeAssignor(), h);
            default:
                throw new IllegalArgumentException("unknown strategy " + strategy);
        }
    }

    /**
     * The classic assignors, called as the group leader calls them: a
     * HashMap of subscriptions, filled in the order the members are listed
     * (the order of the JoinGroup response).
     */
    static Runnable classic(Case c, AbstractPartitionAssignor assignor, Holder h, boolean stickyUserData, boolean cooperative) {
        Map<String, Integer> partitionsPerTopic = new HashMap<>();
        Set<String> subscribed = new HashSet<>();
        c.members.forEach(m -> subscribed.addAll(m.topics));
        c.topics.forEach((t, n) -> {
            if (subscribed.contains(t)) {
                partitionsPerTopic.put(t, n);
            }
        });
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (Member m : c.members) {
            List<TopicPartition> owned = m.ownedPartitions();
            Subscription s;
            if (stickyUserData) {
                ByteBuffer userData = null;
                if (!owned.isEmpty()) {
                    StickyAssignor previous = new StickyAssignor();
                    previous.onAssignment(new Assignment(owned), new ConsumerGroupMetadata("g", 1, m.id, Optional.empty()));
                    userData = previous.subscriptionUserData(new HashSet<>(m.topics));
                }
                s = new Subscription(m.topics, userData, Collections.emptyList());
            } else if (cooperative) {
                s = new Subscription(m.topics, null, owned, 1, Optional.empty());
            } else {
                s = new Subscription(m.topics, null, owned);
            }
            s.setGroupInstanceId(m.instanceId);
            subscriptions.put(m.id, s);
        }
        return () -> h.classic = assignor.assign(partitionsPerTopic, subscriptions);
    }

    /**
     * The consumer protocol's assignors, with members iterated by member id
     * and topics by name, as the Go models iterate them: a LinkedHashMap of
     * members, topic ids whose HashSet order is their name order, owned
     * partitions in ascending order.
     */
    static Runnable consumer(Case c, ConsumerGroupPartitionAssignor assignor, Holder h) {
        Map<String, Uuid> ids = topicIds(c);
        Map<Uuid, Integer> counts = new HashMap<>();
        c.topics.forEach((t, n) -> counts.put(ids.get(t), n));
        SubscribedTopicDescriber describer = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                Integer n = counts.get(topicId);
                return n == null ? -1 : n;
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Collections.emptySet();
            }
        };
        List<Member> sorted = new ArrayList<>(c.members);
        sorted.sort((a, b) -> a.id.compareTo(b.id));
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new LinkedHashMap<>();
        Map<Uuid, Map<Integer, String>> owners = new HashMap<>();
        Set<Set<String>> subscriptions = new HashSet<>();
        for (Member m : sorted) {
            subscriptions.add(new HashSet<>(m.topics));
            Set<Uuid> topicIds = new LinkedHashSet<>();
            for (String t : m.topics) {
                if (ids.containsKey(t)) {
                    topicIds.add(ids.get(t));
                }
            }
            Map<Uuid, Set<Integer>> owned = new LinkedHashMap<>();
            m.owned.forEach((t, ps) -> {
                owned.put(ids.get(t), Collections.unmodifiableSet(new TreeSet<>(ps)));
                ps.forEach(p -> owners.computeIfAbsent(ids.get(t), x -> new HashMap<>()).put(p, m.id));
            });
            members.put(m.id, new MemberSubscriptionAndAssignmentImpl(Optional.empty(), m.instanceId, topicIds,
                new org.apache.kafka.coordinator.group.modern.Assignment(owned)));
        }
        SubscriptionType type = subscriptions.size() == 1 ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
        GroupSpecImpl spec = new GroupSpecImpl(members, type, owners);
        return () -> h.consumer = assignor.assign(spec, describer);
    }

    /**
     * Topic ids 0:2, 0:3, ... in name order: Uuid.hashCode of 0:n is n, so
     * a HashSet of them iterates in name order, and Uuid.compareTo agrees.
     */
    static Map<String, Uuid> topicIds(Case c) {
        Map<String, Uuid> ids = new HashMap<>();
        int i = 2;
        for (String t : c.topics.keySet()) {
            ids.put(t, new Uuid(0, i++));
        }
        return ids;
    }

    static Map<Uuid, String> topicNames(Case c) {
        Map<Uuid, String> names = new HashMap<>();
        topicIds(c).forEach((t, id) -> names.put(id, t));
        return names;
    }

    static void dump(PrintStream out, Case c, String strategy, Map<String, Map<String, TreeSet<Integer>>> a) {
        a.forEach((member, topics) -> {
            StringBuilder b = new StringBuilder("assignment ").append(c.name).append(' ').append(strategy).append(' ').append(member);
            topics.forEach((t, ps) -> {
                if (ps.isEmpty()) {
                    return;
                }
                b.append(' ').append(t).append(':');
                boolean first = true;
                for (int p : ps) {
                    if (!first) {
                        b.append(',');
                    }
                    b.append(p);
                    first = false;
                }
            });
            out.println(b);
        });
    }

    static List<Case> read(Path path) throws IOException {
        List<Case> cases = new ArrayList<>();
        Case current = null;
        int line = 0;
        try (BufferedReader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            for (String s = r.readLine(); s != null; s = r.readLine()) {
                line++;
                String[] f = s.trim().split(" ");
                if (f.length == 0 || f[0].isEmpty()) {
                    continue;
                }
                switch (f[0]) {
                    case "case":
                        current = new Case(f[1]);
                        cases.add(current);
                        break;
                    case "topic":
                        current.topics.put(f[1], Integer.parseInt(f[2]));
                        break;
                    case "member":
                        Map<String, List<Integer>> owned = new TreeMap<>();
                        for (int i = 4; i < f.length; i++) {
                            String[] tp = f[i].split(":");
                            List<Integer> ps = new ArrayList<>();
                            for (String p : tp[1].split(",")) {
                                ps.add(Integer.parseInt(p));
                            }
                            owned.put(tp[0], ps);
                        }
                        current.members.add(new Member(f[1], f[2].equals("-") ? Optional.empty() : Optional.of(f[2]),
                            Arrays.asList(f[3].split(",")), owned));
                        break;
                    case "end":
                        current = null;
                        break;
                    default:
                        throw new IOException(path + ":" + line + ": unknown line kind " + f[0]);
                }
            }
        }
        return cases;
    }
}
