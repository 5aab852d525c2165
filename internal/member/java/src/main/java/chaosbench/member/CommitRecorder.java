package chaosbench.member;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Records the commits the client library makes by itself (the auto and
 * auto-after-process policies): Kafka's Java client reports its
 * auto-commits to no callback, only to interceptors, and only when they
 * succeed. A failed auto-commit is therefore not in the history (the
 * client logs it); the commits the member makes itself are recorded where
 * it makes them, with their errors.
 *
 * The client creates the interceptor by its class name, so it finds the
 * member through a static field: one member per JVM. onCommit may run on
 * the client's own threads (the classic consumer's heartbeat thread can
 * complete a commit); the history is safe for that.
 */
public final class CommitRecorder implements ConsumerInterceptor<byte[], byte[]> {
    static volatile Member member;

    @Override
    public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
        return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Member m = member;
        if (m != null) {
            m.autoCommitted(offsets);
        }
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
