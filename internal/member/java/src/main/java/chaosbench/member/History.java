package chaosbench.member;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Arrays;

/**
 * The member's history file (docs/history.md): one JSON object per line,
 * written as Go's history.Writer writes them (internal/history/encode.go),
 * field for field and in the same order, so that a Java member's history
 * reads the same as a Go member's.
 *
 * Events are buffered in memory and reach the file in one write(2) per
 * flush, straight from this buffer: no Java stream buffers anything
 * between them. A write to the page cache survives a SIGKILL of the JVM,
 * so whoever relies on an event having been recorded (the member before
 * it commits an offset) flushes first. Safe for concurrent use: commits
 * can complete on the client's own threads.
 */
final class History implements AutoCloseable {
    /** One event: the fields a member writes; zero values are left out. */
    static final class Event {
        final String kind;
        long t;
        String topic;
        int partition;
        long offset;
        /** The record's key, as its bytes. */
        byte[] key;
        long seq;
        String producer;
        long intendedT;
        long recordT;
        int[] partitions;
        int gen;
        String memberId;
        String err;
        boolean auto;
        /** A transaction's number in the incarnation (txn events). */
        int step;
        String state;
        String strategy;
        String client;
        String policy;
        String group;
        String host;
        long pid;
        long clockOffset;
        long clockError;

        Event(String kind) {
            this.kind = kind;
        }
    }

    /** The history file; null when the history goes to the topic alone. */
    private final FileChannel ch;
    private final String path;
    /** The history topic's sink; null when the history goes to the file alone. */
    private final TopicSink topic;
    private final String proc;
    private final int inc;
    private byte[] buf = new byte[64 << 10];
    private int len;
    private long last;
    private long skew;
    private IOException err;

    private History(FileChannel ch, String path, TopicSink topic, String proc, int inc) {
        this.ch = ch;
        this.path = path;
        this.topic = topic;
        this.proc = proc;
        this.inc = inc;
    }

    /** Creates dir/proc.inc.jsonl; an existing file is an error (histories are never overwritten). */
    static History create(String dir, String proc, int inc) throws IOException {
        Path p = createPath(dir, proc, inc);
        return new History(openNew(p), p.toString(), null, proc, inc);
    }

    private static Path createPath(String dir, String proc, int inc) throws IOException {
        Files.createDirectories(Path.of(dir));
        return Path.of(dir, proc + "." + inc + ".jsonl");
    }

    private static FileChannel openNew(Path p) throws IOException {
        return FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /**
     * The member's history where its --history-sink says, as Go's
     * historytopic.NewWriter makes it: its file, the history topic
     * (TopicSink), or both (the file written first).
     */
    static History open(Config cfg) throws IOException {
        switch (cfg.historySink) {
            case "", "file":
                return create(cfg.historyDir, cfg.name, cfg.inc);
            case "topic":
                return new History(null, "", new TopicSink(cfg), cfg.name, cfg.inc);
            case "tee":
                Path p = createPath(cfg.historyDir, cfg.name, cfg.inc);
                FileChannel ch = openNew(p);
                try {
                    return new History(ch, p.toString(), new TopicSink(cfg), cfg.name, cfg.inc);
                } catch (RuntimeException e) {
                    ch.close();
                    throw e;
                }
            default:
                throw new IOException("--history-sink " + Config.quote(cfg.historySink) + ": expected file, topic or tee");
        }
    }

    /** The wall clock in Unix nanoseconds, as Go's time.Now().UnixNano(). */
    static long now() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /**
     * Adds ns to every time this history stamps from now on (a clock
     * running that far ahead, as Go's Writer.Skew): for tests of the
     * clock correction.
     */
    synchronized void skew(long ns) {
        skew = ns;
    }

    /** The time append would stamp an event with now (Go's Writer.Now). */
    synchronized long clock() {
        return Math.max(now() + skew, last);
    }

    /**
     * Appends e, stamped now unless it has a time. Times in one file never
     * go backwards: an event stamped earlier than its predecessor (a
     * wall-clock step) gets the predecessor's time.
     */
    synchronized void append(Event e) throws IOException {
        if (err != null) {
            throw err;
        }
        if (e.t == 0) {
            e.t = now() + skew;
        }
        if (e.t < last) {
            e.t = last;
        }
        last = e.t;
        encode(e);
        put((byte) '\n');
        if (len >= 1 << 20) {
            flush();
        }
    }

    /**
     * Makes every appended event durable: written to the file, and
     * acknowledged by the brokers on the topic; it returns once they are.
     */
    synchronized void flush() throws IOException {
        if (err != null) {
            throw err;
        }
        if (len == 0) {
            return;
        }
        if (ch != null) {
            ByteBuffer b = ByteBuffer.wrap(buf, 0, len);
            try {
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            } catch (IOException e) {
                err = new IOException("history " + path + ": " + e.getMessage(), e);
                throw err;
            }
        }
        if (topic != null) {
            try {
                topic.write(buf, len);
            } catch (IOException e) {
                err = e;
                throw err;
            }
        }
        len = 0;
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            flush();
        } finally {
            if (ch != null) {
                ch.close();
            }
            if (topic != null) {
                topic.close();
            }
            if (err == null) {
                err = new IOException("history: writer closed");
            }
        }
    }

    // The encoding: Go's history.AppendJSON, restricted to what members write.

    private void encode(Event e) {
        ascii("{\"kind\":");
        string(e.kind);
        ascii(",\"t\":");
        number(e.t);
        ascii(",\"proc\":");
        string(proc);
        ascii(",\"inc\":");
        number(inc);
        optString("topic", e.topic);
        boolean hasPartition = e.kind.equals("processed") || e.kind.equals("committed");
        if (hasPartition) {
            ascii(",\"partition\":");
            number(e.partition);
            ascii(",\"offset\":");
            number(e.offset);
        }
        if (e.key != null && e.key.length > 0) {
            ascii(",\"key\":");
            string(e.key);
        }
        if (e.kind.equals("processed")) {
            ascii(",\"seq\":");
            number(e.seq);
        }
        optString("producer", e.producer);
        optNumber("intended_t", e.intendedT);
        optNumber("record_t", e.recordT);
        if (e.kind.equals("assigned") || e.kind.equals("revoked") || e.kind.equals("lost")) {
            ascii(",\"partitions\":[");
            int[] ps = e.partitions == null ? new int[0] : e.partitions;
            for (int i = 0; i < ps.length; i++) {
                if (i > 0) {
                    put((byte) ',');
                }
                number(ps[i]);
            }
            put((byte) ']');
        }
        optNumber("gen", e.gen);
        optString("member_id", e.memberId);
        optString("err", e.err);
        if (e.auto) {
            ascii(",\"auto\":true");
        }
        optNumber("step", e.step);
        optString("state", e.state);
        optString("strategy", e.strategy);
        optString("client", e.client);
        optString("policy", e.policy);
        optString("group", e.group);
        optString("host", e.host);
        optNumber("pid", e.pid);
        optNumber("clock_offset", e.clockOffset);
        optNumber("clock_error", e.clockError);
        put((byte) '}');
    }

    private void optString(String key, String v) {
        if (v == null || v.isEmpty()) {
            return;
        }
        ascii(",\"" + key + "\":");
        string(v);
    }

    private void optNumber(String key, long v) {
        if (v == 0) {
            return;
        }
        ascii(",\"" + key + "\":");
        number(v);
    }

    private void number(long v) {
        ascii(Long.toString(v));
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** A JSON string: s as UTF-8, escaped as below. */
    private void string(String s) {
        string(s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A JSON string from raw bytes (a record's key), escaped as Go's
     * appendString escapes it: quotes, backslashes and control characters
     * escaped, each byte of invalid UTF-8 written as U+FFFD's own UTF-8 bytes (as
     * Go's writer does, so that a line read and written again is the same), the
     * rest as is.
     */
    void string(byte[] s) {
        put((byte) '"');
        for (int i = 0; i < s.length; ) {
            int c = s[i] & 0xff;
            if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
                put((byte) c);
                i++;
                continue;
            }
            if (c < 0x80) {
                put((byte) '\\');
                switch (c) {
                    case '"', '\\' -> put((byte) c);
                    case '\n' -> put((byte) 'n');
                    case '\r' -> put((byte) 'r');
                    case '\t' -> put((byte) 't');
                    default -> {
                        put((byte) 'u');
                        put((byte) '0');
                        put((byte) '0');
                        put(HEX[c >> 4]);
                        put(HEX[c & 0xf]);
                    }
                }
                i++;
                continue;
            }
            int n = runeLength(s, i);
            if (n == 0) {
                put((byte) 0xef); // U+FFFD
                put((byte) 0xbf);
                put((byte) 0xbd);
                i++;
                continue;
            }
            for (int k = 0; k < n; k++) {
                put(s[i + k]);
            }
            i += n;
        }
        put((byte) '"');
    }

    /**
     * The length of the valid UTF-8 sequence at s[i] (a lead byte >= 0x80),
     * or 0 if it is not one: Go's utf8.DecodeRune rules (no overlong forms,
     * no surrogates, nothing above U+10FFFF).
     */
    static int runeLength(byte[] s, int i) {
        int c = s[i] & 0xff;
        int n;
        int lo = 0x80, hi = 0xbf; // the range of the second byte
        if (c >= 0xc2 && c <= 0xdf) {
            n = 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 3;
            if (c == 0xe0) {
                lo = 0xa0;
            } else if (c == 0xed) {
                hi = 0x9f;
            }
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 4;
            if (c == 0xf0) {
                lo = 0x90;
            } else if (c == 0xf4) {
                hi = 0x8f;
            }
        } else {
            return 0;
        }
        if (i + n > s.length) {
            return 0;
        }
        int b1 = s[i + 1] & 0xff;
        if (b1 < lo || b1 > hi) {
            return 0;
        }
        for (int k = 2; k < n; k++) {
            int b = s[i + k] & 0xff;
            if (b < 0x80 || b > 0xbf) {
                return 0;
            }
        }
        return n;
    }

    private void ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            put((byte) s.charAt(i));
        }
    }

    private void put(byte b) {
        if (len == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        buf[len++] = b;
    }
}
