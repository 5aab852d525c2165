package chaosbench.member;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;

/**
 * A consumer-group member on Kafka's Java client: it polls a batch (up to
 * max.poll.records), processes it record by record, writes a processed
 * event per record, and commits as its policy says (docs/members.md), the
 * way the Go members do (internal/member/member.go).
 *
 * Everything that touches the consumer runs on the main thread, as the
 * Java client requires: the poll loop, processing, the commits, and the
 * rebalance and commit callbacks, which the client runs inside poll,
 * commitSync and close. Other threads only set flags (the stop, the stall)
 * or append to the history, which is safe for concurrent use.
 */
final class Member implements ConsumerRebalanceListener {
    private final Config cfg;
    private final History hist;
    private final Settings.Strategy strategy;
    private final SplittableRandom rng;
    private final String topic;
    private KafkaConsumer<byte[], byte[]> consumer;

    /** A pending processing stall (ns), set by the slow command, taken by the next record. */
    private final AtomicLong stall = new AtomicLong();
    /** Released by a graceful stop (SIGTERM): it cuts the processing of a batch short. */
    private final CountDownLatch stop = new CountDownLatch(1);

    // Main thread only.
    private final Set<Integer> owned = new HashSet<>();
    /** Partition -> the next offset to commit, of processed records not yet committed. */
    private final Map<Integer, Long> uncommitted = new HashMap<>();
    /** Partition -> the highest offset committed: a failed older commit never rewinds it. */
    private final Map<Integer, Long> committedHigh = new HashMap<>();

    // The transactional policy (main thread only, but prodErr).
    private final boolean transactional;
    private KafkaProducer<byte[], byte[]> producer;
    private int txn;
    private boolean txnOpen;
    private long txnOpenedAt;
    private int txnPolled;
    private int txnProduced;
    /** The first output record of the open transaction that failed (the producer's thread). */
    private volatile Exception prodErr;
    /** A fatal transaction error: the member ends with it. */
    private KafkaException txnFatal;
    /**
     * The broken test double (internal/member/txnstate.go, TestDoubleEnv):
     * no offsets in the transaction; each transaction's offsets committed
     * with a plain commitSync after the next one commits.
     */
    private final boolean offsetsOutside;
    /** The double's late offsets: the previous transaction's. */
    private Map<Integer, Long> prevOffsets = new TreeMap<>();

    Member(Config cfg, History hist) {
        this.cfg = cfg;
        this.hist = hist;
        this.strategy = Settings.strategy(cfg.strategy);
        this.topic = cfg.topic;
        // Its own stream per member and incarnation, like the Go members'
        // (not the same numbers: the costs follow the same distribution).
        this.rng = new SplittableRandom(cfg.seed * 0x9E3779B97F4A7C15L + cfg.inc + 1);
        this.transactional = cfg.policy.equals("transactional");
        this.offsetsOutside = transactional && TEST_DOUBLE_OFFSETS_OUTSIDE.equals(System.getenv(TEST_DOUBLE_ENV));
    }

    /** The Go members' TestDoubleEnv and TestDoubleOffsetsOutside (internal/member/txnstate.go). */
    static final String TEST_DOUBLE_ENV = "CHAOSBENCH_MEMBER_TEST_DOUBLE";
    static final String TEST_DOUBLE_OFFSETS_OUTSIDE = "txn-offsets-outside";

    /** Asks the member to close gracefully: the policy's final commit, then LeaveGroup. */
    void requestStop() {
        stop.countDown();
    }

    private boolean stopping() {
        return stop.getCount() == 0;
    }

    /**
     * Runs the member until a stop is requested or the client fails;
     * returns the exit status.
     */
    int run() throws IOException {
        if (cfg.control) {
            Thread t = new Thread(this::readControl, "control");
            t.setDaemon(true);
            t.start();
        }
        if (!cfg.controlAddr.isEmpty()) {
            Thread t = new Thread(() -> Control.run(cfg.controlAddr, cfg.controlToken, cfg.name, cfg.inc,
                this::command, this::logLine), "control-network");
            t.setDaemon(true);
            t.start();
        }
        Map<String, Object> props = Settings.of(cfg);
        if (Settings.autoCommit(cfg.policy)) {
            CommitRecorder.member = this;
        }
        consumer = new KafkaConsumer<>(props);
        if (transactional) {
            producer = new KafkaProducer<>(Settings.producerOf(cfg));
            producer.initTransactions();
            if (offsetsOutside) {
                logf("test double %s: offsets committed outside the transactions", TEST_DOUBLE_OFFSETS_OUTSIDE);
            }
        }
        // The join request follows: the analysis takes this, not the
        // program's start, as the member joining (docs/history.md).
        append(state("joining"));
        flush();
        consumer.subscribe(List.of(topic), this);
        int status = 0;
        List<ConsumerRecord<byte[], byte[]>> cut = List.of();
        try {
            while (!stopping()) {
                ConsumerRecords<byte[], byte[]> polled;
                try {
                    polled = consumer.poll(Duration.ofMillis(100));
                } catch (RetriableException e) {
                    logf("poll: %s", describe(e));
                    continue;
                }
                List<ConsumerRecord<byte[], byte[]>> batch = filterOwned(polled);
                if (txnFatal != null) {
                    throw txnFatal;
                }
                if (batch.isEmpty()) {
                    if (txnOpen && txnDue()) {
                        endTxn(true, "");
                    }
                    continue;
                }
                if (cfg.policy.equals("commit-before-process")) {
                    commitSync(batchOffsets(batch));
                    batch = filterOwned(batch);
                }
                if (transactional) {
                    beginTxn(batch.size());
                }
                int done = process(batch);
                if (done < batch.size()) {
                    cut = batch.subList(done, batch.size());
                    break;
                }
                afterBatch();
            }
        } catch (KafkaException e) {
            logf("client error: %s", describe(e));
            status = 1;
        }
        append(state("stopping"));
        flush();
        finalCommit(cut);
        if (producer != null) {
            try {
                producer.close(Duration.ofSeconds(10));
            } catch (KafkaException e) {
                logf("producer close: %s", describe(e));
            }
        }
        // close leaves the group (a static member does not: its instance
        // id keeps its partitions until the session times out); the client
        // runs onPartitionsRevoked for the revocation, recorded there, and
        // with auto-commit commits the position first.
        try {
            consumer.close();
        } catch (KafkaException e) {
            logf("close: %s", describe(e));
            status = status == 0 ? 1 : status;
        }
        return status;
    }

    /** The records of partitions the member owns (all of them, unless a callback took some meanwhile). */
    private List<ConsumerRecord<byte[], byte[]>> filterOwned(Iterable<ConsumerRecord<byte[], byte[]>> records) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (owned.contains(r.partition())) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * Processes a batch: the processing cost, then the processed event,
     * written with one write(2) before the next record (the write-ahead
     * rule: nothing is committed for a record before its event is in the
     * file). Returns how many records were processed: fewer when a stop
     * cut the batch short.
     *
     * <p>The costs run on a schedule, as the Go members' do
     * (internal/member/member.go, process): each record is done when the
     * batch's start plus the costs so far is due, so that a wait that ends
     * late on a busy host is made up by the next records' waits, up to
     * carryOf(cost), and a member's capacity is the workload's, not the
     * host's. Unlike a Go member, a Java member resumed by SIGCONT after a
     * pause step does not restart its schedule (the JVM gives no portable
     * hook for the signal): it makes up at most carryOf(cost) of the
     * freeze.
     */
    private int process(List<ConsumerRecord<byte[], byte[]>> batch) throws IOException {
        long due = System.nanoTime();
        long carry = carryOf(cfg.processingCostNs);
        for (int i = 0; i < batch.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = batch.get(i);
            long d = cost();
            long st = stall.getAndSet(0);
            if (st > 0) {
                logf("stalling %s (slow)", Duration.ofNanos(st));
                d += st;
            }
            if (d > 0) {
                long now = System.nanoTime();
                due = Math.max(due, now - carry) + d;
                if (!sleep(Math.max(0, due - now))) {
                    return i;
                }
            }
            History.Event e = new History.Event("processed");
            e.partition = r.partition();
            e.offset = r.offset();
            e.key = r.key();
            e.recordT = r.timestamp() * 1_000_000L;
            Stamp.read(r.value(), e);
            append(e);
            flush();
            uncommitted.put(r.partition(), r.offset() + 1);
            if (transactional) {
                emit(r, e);
            }
        }
        return batch.size();
    }

    /**
     * The most lateness of the processing schedule the next records make
     * up: fifty records' cost, at least 20 ms and at most a second (the Go
     * members' carryOf).
     */
    static long carryOf(long costNs) {
        return Math.min(Math.max(50 * costNs, 20_000_000L), 1_000_000_000L);
    }

    /** One record's processing cost (workloads.Processing: fixed, uniform or exponential). */
    private long cost() {
        long c = cfg.processingCostNs;
        switch (cfg.processingDistribution) {
            case "uniform": {
                long j = cfg.processingJitterNs;
                return Math.max(0, c - j + rng.nextLong(2 * j + 1));
            }
            case "exponential":
                return Math.round(-Math.log(1 - rng.nextDouble()) * c);
            default:
                return c;
        }
    }

    /** Waits d ns, or until a stop; reports whether d passed. */
    private boolean sleep(long d) {
        if (stopping()) {
            return false;
        }
        try {
            return !stop.await(d, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // Commits.

    /** Commits (or leaves to the client) what the batch processed, as the policy says. */
    private void afterBatch() throws IOException {
        switch (cfg.policy) {
            case "sync-batch" -> commitSync(takeUncommitted(null));
            case "async-batch", "async-sync-on-revoke" -> commitAsync(takeUncommitted(null));
            case "transactional" -> {
                if (txnOpen && txnDue()) {
                    endTxn(true, "");
                }
            }
            // auto, auto-after-process: the client commits its position at
            // the next poll, which comes only after the whole batch was
            // processed; commit-before-process committed first.
            default -> takeUncommitted(null);
        }
    }

    /**
     * The policy's commit on a graceful close. cut holds the records of a
     * batch the stop cut short, polled but never processed.
     */
    private void finalCommit(List<ConsumerRecord<byte[], byte[]>> cut) throws IOException {
        if (txnOpen && txnFatal == null) {
            // Commit what was processed and produced whole; a batch cut
            // short aborts, and its records come again.
            endTxn(cut.isEmpty() && txnProduced == txnPolled, "shutdown");
        }
        switch (cfg.policy) {
            case "sync-batch", "async-batch", "async-sync-on-revoke" -> commitSync(takeUncommitted(null));
            case "auto-after-process" -> {
                // Java's client has no offset store: its auto-commit commits
                // the position, which is past the whole polled batch. Close
                // commits it; seeking back to each partition's first
                // unprocessed record makes that what was processed.
                Map<Integer, Long> first = new TreeMap<>();
                for (ConsumerRecord<byte[], byte[]> r : cut) {
                    first.merge(r.partition(), r.offset(), Math::min);
                }
                for (Map.Entry<Integer, Long> f : first.entrySet()) {
                    if (owned.contains(f.getKey())) {
                        consumer.seek(new TopicPartition(topic, f.getKey()), f.getValue());
                    }
                }
            }
            // auto: close commits the polled position, processed or not
            // (the policy promises nothing); commit-before-process
            // committed first.
            default -> { }
        }
        flush();
    }

    // The transactional policy: consume-transform-produce, as Kafka's
    // documentation of KafkaProducer.sendOffsetsToTransaction describes it.

    /** Begins a transaction for a batch of n records, unless one is open; its begin event first. */
    private void beginTxn(int n) throws IOException {
        if (txnOpen) {
            txnPolled += n;
            return;
        }
        txn++;
        History.Event e = new History.Event("txn");
        e.step = txn;
        e.state = "begin";
        append(e);
        flush();
        producer.beginTransaction();
        txnOpen = true;
        txnOpenedAt = System.nanoTime();
        txnPolled = n;
        txnProduced = 0;
        prodErr = null;
    }

    /** Produces a processed record's output (internal/member/output.go's value) into the open transaction. */
    private void emit(ConsumerRecord<byte[], byte[]> r, History.Event processed) {
        String producerName = processed.producer == null || processed.producer.isEmpty() ? "-" : processed.producer;
        String v = "cbo1 " + r.partition() + " " + r.offset() + " " + producerName + " " + processed.seq + " "
            + cfg.name + " " + cfg.inc + " " + txn + " " + History.now();
        txnProduced++;
        producer.send(new ProducerRecord<>(cfg.outputTopic, r.key(), v.getBytes(StandardCharsets.UTF_8)), (md, err) -> {
            if (err != null && prodErr == null) {
                prodErr = err;
            }
        });
    }

    /** Whether the open transaction commits now: after every batch, or by count or time. */
    private boolean txnDue() {
        if (cfg.commitRecords == 0 && cfg.commitIntervalNs == 0) {
            return true;
        }
        return (cfg.commitRecords > 0 && txnProduced >= cfg.commitRecords)
            || (cfg.commitIntervalNs > 0 && System.nanoTime() - txnOpenedAt >= cfg.commitIntervalNs);
    }

    /**
     * Ends the open transaction: a commit (the offsets to the transaction
     * with the consumer's group metadata, then commitTransaction) or an
     * abort for cause, after which the member's partitions are rewound to
     * their committed offsets. Fencing is fatal: the member ends.
     */
    private void endTxn(boolean commit, String cause) throws IOException {
        Map<Integer, Long> offs = takeUncommitted(null);
        Exception perr = prodErr;
        if (commit && perr != null) {
            commit = false;
            cause = "produce: " + describe(perr);
        }
        txnOpen = false;
        if (commit) {
            History.Event c = new History.Event("txn");
            c.step = txn;
            c.state = "committing";
            append(c);
            flush();
            try {
                if (!offs.isEmpty() && !offsetsOutside) {
                    producer.sendOffsetsToTransaction(toKafka(offs), consumer.groupMetadata());
                }
                producer.commitTransaction();
                History.Event ok = new History.Event("txn");
                ok.step = txn;
                ok.state = "committed";
                append(ok);
                if (offsetsOutside) {
                    flush();
                    commitSync(prevOffsets); // the previous transaction's, outside this one
                    prevOffsets = offs;
                    return;
                }
                for (Map.Entry<Integer, Long> o : offs.entrySet()) {
                    committed(o.getKey(), o.getValue(), null, false);
                    committedHigh.merge(o.getKey(), o.getValue(), Math::max);
                }
                flush();
                return;
            } catch (ProducerFencedException | InvalidProducerEpochException e) {
                txnAborted("fenced: " + describe(e));
                txnFatal = e;
                return;
            } catch (KafkaException e) {
                cause = System.nanoTime() - txnOpenedAt >= cfg.transactionTimeoutNs ? "timeout: " + describe(e)
                    : fenced(e) ? "rebalance: " + describe(e) : "error: " + describe(e);
            }
        }
        try {
            producer.abortTransaction();
        } catch (KafkaException e) {
            txnAborted(cause);
            txnFatal = e;
            return;
        }
        txnAborted(cause);
        rewind();
    }

    private void txnAborted(String cause) throws IOException {
        History.Event a = new History.Event("txn");
        a.step = txn;
        a.state = "aborted";
        a.err = cause;
        append(a);
        flush();
    }

    /** Seeks the owned partitions back to their committed offsets (the start, without one). */
    private void rewind() {
        Set<TopicPartition> tps = new HashSet<>();
        for (int p : owned) {
            tps.add(new TopicPartition(topic, p));
        }
        if (tps.isEmpty()) {
            return;
        }
        try {
            Map<TopicPartition, OffsetAndMetadata> c = consumer.committed(tps);
            for (TopicPartition tp : tps) {
                OffsetAndMetadata om = c.get(tp);
                if (om == null) {
                    consumer.seekToBeginning(List.of(tp));
                } else {
                    consumer.seek(tp, om.offset());
                }
            }
        } catch (RuntimeException e) {
            logf("rewind: %s", describe(e));
        }
    }

    /** Per partition, the offset after the batch's last record: what committing the batch commits. */
    private static Map<Integer, Long> batchOffsets(List<ConsumerRecord<byte[], byte[]>> batch) {
        Map<Integer, Long> out = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : batch) {
            out.merge(r.partition(), r.offset() + 1, Math::max);
        }
        return out;
    }

    /** The processed-but-uncommitted offsets (of ps, or all when null), cleared. */
    private Map<Integer, Long> takeUncommitted(Collection<Integer> ps) {
        Map<Integer, Long> out = new TreeMap<>();
        uncommitted.entrySet().removeIf(en -> {
            if (ps == null || ps.contains(en.getKey())) {
                out.put(en.getKey(), en.getValue());
                return true;
            }
            return false;
        });
        return out;
    }

    /**
     * Puts back offsets whose commit failed, for the member's next commit,
     * unless newer ones were processed or committed since, or the
     * partition is gone (docs/members.md: both Go clients do the same).
     */
    private void restoreUncommitted(Map<Integer, Long> failed) {
        for (Map.Entry<Integer, Long> f : failed.entrySet()) {
            int p = f.getKey();
            long off = f.getValue();
            if (owned.contains(p) && uncommitted.getOrDefault(p, -1L) < off && committedHigh.getOrDefault(p, -1L) < off) {
                uncommitted.put(p, off);
            }
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> toKafka(Map<Integer, Long> offs) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        offs.forEach((p, off) -> out.put(new TopicPartition(topic, p), new OffsetAndMetadata(off)));
        return out;
    }

    private void commitSync(Map<Integer, Long> offs) throws IOException {
        if (offs.isEmpty()) {
            return;
        }
        Exception err = null;
        try {
            consumer.commitSync(toKafka(offs));
        } catch (KafkaException e) {
            err = e;
        }
        commitDone(offs, err);
    }

    /**
     * Commits in the background. The client runs the callback on this
     * thread, inside a later poll, commit or close.
     */
    private void commitAsync(Map<Integer, Long> offs) {
        if (offs.isEmpty()) {
            return;
        }
        consumer.commitAsync(toKafka(offs), (done, err) -> {
            try {
                commitDone(offs, err);
            } catch (IOException e) {
                logf("history: %s", e.getMessage());
            }
        });
    }

    /** Records a manual commit's outcome per partition; a failure goes into the next commit, unless fenced. */
    private void commitDone(Map<Integer, Long> offs, Exception err) throws IOException {
        Map<Integer, Long> failed = new TreeMap<>();
        for (Map.Entry<Integer, Long> o : offs.entrySet()) {
            committed(o.getKey(), o.getValue(), err, false);
            if (err == null) {
                committedHigh.merge(o.getKey(), o.getValue(), Math::max);
            } else if (!fenced(err)) {
                failed.put(o.getKey(), o.getValue());
            }
        }
        if (err != null) {
            logf("commit %s: %s", offs, describe(err));
        }
        restoreUncommitted(failed);
        flush();
    }

    /**
     * Whether a commit failed because the member's membership or generation
     * is gone: the partitions' next owners start from the last commit, and
     * retrying the offsets could rewind a newer owner's commit. The Java
     * client reports that as CommitFailedException (UNKNOWN_MEMBER_ID,
     * ILLEGAL_GENERATION, a member that left after max.poll.interval.ms).
     */
    private static boolean fenced(Throwable err) {
        for (Throwable t = err; t != null; t = t.getCause()) {
            if (t instanceof CommitFailedException || t instanceof UnknownMemberIdException
                || t instanceof IllegalGenerationException || t instanceof StaleMemberEpochException
                || t instanceof FencedInstanceIdException) {
                return true;
            }
        }
        return false;
    }

    /** The client's own commits, reported by CommitRecorder; possibly on another thread. */
    void autoCommitted(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            for (Map.Entry<Integer, OffsetAndMetadata> o : new TreeMap<>(byPartition(offsets)).entrySet()) {
                committed(o.getKey(), o.getValue().offset(), null, true);
            }
            flush();
        } catch (IOException e) {
            logf("history: %s", e.getMessage());
        }
    }

    private Map<Integer, OffsetAndMetadata> byPartition(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<Integer, OffsetAndMetadata> out = new HashMap<>();
        offsets.forEach((tp, om) -> {
            if (tp.topic().equals(topic) && om != null) {
                out.put(tp.partition(), om);
            }
        });
        return out;
    }

    private void committed(int p, long offset, Throwable err, boolean auto) throws IOException {
        History.Event e = new History.Event("committed");
        e.partition = p;
        e.offset = offset;
        e.auto = auto;
        if (err != null) {
            e.err = describe(err);
        }
        append(e);
    }

    // Rebalance callbacks: the client runs them on this thread, inside poll
    // (and commitSync and close).

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        int[] ps = partitionsOf(partitions);
        for (int p : ps) {
            owned.add(p);
        }
        // An incremental rebalance hands out only what moves: an empty
        // delta says nothing. Under the eager protocols every rebalance is
        // revoked-then-assigned, empty or not.
        if (ps.length == 0 && !strategy.eager()) {
            return;
        }
        History.Event e = new History.Event("assigned");
        e.topic = topic;
        e.partitions = ps;
        ConsumerGroupMetadata g = groupMetadata();
        if (g != null) {
            e.gen = Math.max(0, g.generationId());
            e.memberId = g.memberId();
        }
        record(e);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        int[] ps = partitionsOf(partitions);
        if (txnOpen && txnFatal == null) {
            // The member is still in the generation: commit what was
            // processed and produced whole.
            try {
                endTxn(txnProduced == txnPolled, "rebalance");
            } catch (IOException e) {
                logf("history: %s", e.getMessage());
            }
        }
        if (cfg.policy.equals("async-sync-on-revoke")) {
            List<Integer> revoked = new ArrayList<>();
            for (int p : ps) {
                revoked.add(p);
            }
            try {
                commitSync(takeUncommitted(revoked));
            } catch (IOException e) {
                logf("history: %s", e.getMessage());
            }
        }
        removed("revoked", ps);
    }

    /**
     * Partitions lost without a chance to commit (a session or poll
     * timeout, a fenced member). The client's default would call
     * onPartitionsRevoked and its commit; a lost partition's next owner
     * may already have it.
     */
    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        if (txnOpen && txnFatal == null) {
            try {
                endTxn(false, "rebalance: partitions lost");
            } catch (IOException e) {
                logf("history: %s", e.getMessage());
            }
        }
        removed("lost", partitionsOf(partitions));
    }

    private void removed(String kind, int[] ps) {
        for (int p : ps) {
            owned.remove(p);
            uncommitted.remove(p);
        }
        if (ps.length == 0 && !strategy.eager()) {
            return;
        }
        History.Event e = new History.Event(kind);
        e.topic = topic;
        e.partitions = ps;
        ConsumerGroupMetadata g = groupMetadata();
        if (g != null) {
            e.gen = Math.max(0, g.generationId());
        }
        record(e);
    }

    private ConsumerGroupMetadata groupMetadata() {
        try {
            return consumer.groupMetadata();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private int[] partitionsOf(Collection<TopicPartition> tps) {
        return tps.stream().filter(tp -> tp.topic().equals(topic)).mapToInt(TopicPartition::partition).sorted().toArray();
    }

    /** Appends and flushes an event from a callback, which must not throw into the client. */
    private void record(History.Event e) {
        try {
            append(e);
            flush();
        } catch (IOException ex) {
            logf("history: %s", ex.getMessage());
        }
    }

    // The control channel.

    /**
     * Carries out one of the driver's commands, from either channel (the
     * standard input, the network: Control), as the Go member's command
     * does:
     *
     *   slow <duration>   stall the next record's processing for <duration>
     *
     * Returns null when the command was taken; an unknown or malformed one
     * is logged and refused, and its reason returned.
     */
    String command(String line) {
        String[] f = line.trim().split("\\s+");
        if (f.length == 0 || f[0].isEmpty()) {
            return null;
        }
        String err;
        if (f[0].equals("slow") && f.length == 2) {
            long d;
            try {
                d = GoDuration.parse(f[1]);
            } catch (IllegalArgumentException | ArithmeticException e) {
                d = -1;
            }
            if (d > 0) {
                stall.set(d);
                return null;
            }
            err = Config.quote(line) + ": expected a positive duration";
        } else {
            err = "unknown command " + Config.quote(line);
        }
        logf("control: %s", err);
        return err;
    }

    /**
     * Reads the driver's commands from standard input, one per line, until
     * end of file: the local channel, which acknowledges nothing.
     */
    private void readControl() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                command(line);
            }
        } catch (IOException e) {
            logf("control: %s", e.getMessage());
        }
    }

    // The history and the log.

    History.Event state(String s) {
        History.Event e = new History.Event("member");
        e.state = s;
        return e;
    }

    private void append(History.Event e) throws IOException {
        hist.append(e);
    }

    private void flush() throws IOException {
        hist.flush();
    }

    static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isEmpty() ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + m;
    }

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    /** The stall the next record will take (the slow command's), ns. */
    long pendingStall() {
        return stall.get();
    }

    /** A line of the member's log, as is. */
    void logLine(String line) {
        logf("%s", line);
    }

    /** The member's own log line, as the Go members write theirs. */
    void logf(String format, Object... args) {
        Main.log(LocalTime.now(ZoneOffset.UTC).format(CLOCK) + " " + cfg.clientId() + ": " + String.format(format, args));
    }
}
