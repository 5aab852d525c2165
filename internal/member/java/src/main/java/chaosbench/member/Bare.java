package chaosbench.member;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A bare consumer: what the Java member is without chaosbench. The same
 * kafka-clients consumer with the same properties (Settings.of), polling
 * batches of max.poll.records and committing them as the policy says, with
 * no history, no processing simulation, no stamp read and no bookkeeping of
 * owned partitions. The harness-overhead benchmark
 * (internal/member/benchmember) drains one topic with a member and with
 * this, side by side: the difference is what the member adds. The Go
 * clients' bare consumers are in internal/member/bare.go; this one keeps
 * their contract: the same flags, the same policies, the same report.
 *
 * <p>A SIGTERM closes it gracefully (the final commit, leave the group) and
 * it prints {"records": N, "first_t": NS, "last_t": NS} on standard output:
 * how many records it took and when it took the first and the last (Unix
 * ns, its own clock).
 */
final class Bare {
    private Bare() {}

    static int run(Config cfg) {
        if (!List.of("sync-batch", "async-batch", "auto").contains(cfg.policy)) {
            Main.log("chaos member: --policy " + cfg.policy + ": the bare consumer takes sync-batch, async-batch or auto");
            return 2;
        }
        Map<String, Object> props = Settings.of(cfg);
        props.remove(org.apache.kafka.clients.consumer.ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG); // the member's commit recorder
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        CountDownLatch done = new CountDownLatch(1);
        int[] status = {1};
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                done.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Runtime.getRuntime().halt(status[0]);
        }, "stop"));
        long records = 0, first = 0, last = 0;
        try (consumer) {
            consumer.subscribe(List.of(cfg.topic));
            try {
                while (true) {
                    ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                    if (batch.isEmpty()) {
                        continue;
                    }
                    long now = History.now();
                    if (records == 0) {
                        first = now;
                    }
                    records += batch.count();
                    last = now;
                    switch (cfg.policy) {
                        case "sync-batch" -> consumer.commitSync();
                        case "async-batch" -> consumer.commitAsync();
                        default -> { } // auto: the client commits
                    }
                }
            } catch (WakeupException stop) {
                if (!cfg.policy.equals("auto")) {
                    consumer.commitSync();
                }
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("records", records);
            out.put("first_t", first);
            out.put("last_t", last);
            System.out.println(Json.encode(out));
            System.out.flush();
            status[0] = 0;
        } catch (RuntimeException e) {
            Main.log("chaos member: bare consumer: " + Member.describe(e));
        } finally {
            done.countDown();
        }
        return status[0];
    }
}
