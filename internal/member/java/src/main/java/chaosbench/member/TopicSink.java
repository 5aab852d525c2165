package chaosbench.member;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The history topic, as Go's internal/historytopic writes it: one record a
 * line (the line without its newline), keyed by the incarnation
 * ("name.inc"), with the chaosbench-cell header naming the cell (the
 * member's topic). A write returns once the brokers have acknowledged
 * every line it was given (acks=all, an idempotent producer): the
 * write-ahead rule, as the file's write(2) keeps it.
 */
final class TopicSink implements AutoCloseable {
    /** The header of the cell, as historytopic.CellHeader. */
    static final String CELL_HEADER = "chaosbench-cell";
    /** How long a write waits for its acknowledgements, as historytopic.DeliveryTimeout. */
    static final long DELIVERY_TIMEOUT_MS = 120_000;

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final byte[] key;
    private final List<Header> headers;

    TopicSink(Config cfg) {
        this.topic = cfg.historyTopic;
        this.key = cfg.clientId().getBytes(StandardCharsets.UTF_8);
        this.headers = List.of(new RecordHeader(CELL_HEADER, cfg.topic.getBytes(StandardCharsets.UTF_8)));
        this.producer = new KafkaProducer<>(propertiesOf(cfg));
    }

    /**
     * The producer's properties: the cluster's connection properties of
     * the -X ones (security.protocol, ssl.*, sasl.*, as the Go side's
     * kafkaconf.IsConnectionKey), the history topic's bootstrap, and the
     * settings the write-ahead rule rests on.
     */
    static Map<String, Object> propertiesOf(Config cfg) {
        Map<String, Object> p = new TreeMap<>();
        cfg.props.forEach((k, v) -> {
            boolean connection = k.equals("security.protocol") || k.startsWith("ssl.") || k.startsWith("sasl.");
            if (connection && ProducerConfig.configNames().contains(k)) {
                p.put(k, v);
            }
        });
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cfg.historyBootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, cfg.clientId() + ".history");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(DELIVERY_TIMEOUT_MS));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    /** Produces each line of buf[0:len) (whole lines, each ending in '\n') and waits for every acknowledgement. */
    void write(byte[] buf, int len) throws IOException {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < len; i++) {
            if (buf[i] == '\n') {
                byte[] line = Arrays.copyOfRange(buf, start, i);
                acks.add(producer.send(new ProducerRecord<>(topic, null, key, line, headers)));
                start = i + 1;
            }
        }
        if (start != len) {
            throw new IOException("history topic " + topic + ": a line without its newline");
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DELIVERY_TIMEOUT_MS);
        for (Future<RecordMetadata> f : acks) {
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                Throwable c = e.getCause() == null ? e : e.getCause();
                throw new IOException("history topic " + topic + " (key " + new String(key, StandardCharsets.UTF_8) + "): " + c, c);
            } catch (TimeoutException e) {
                throw new IOException("history topic " + topic + ": not acknowledged within " + DELIVERY_TIMEOUT_MS + " ms", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("history topic " + topic + ": interrupted while waiting for acknowledgements", e);
            }
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
