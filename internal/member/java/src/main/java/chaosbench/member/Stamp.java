package chaosbench.member;

import java.nio.charset.StandardCharsets;

/**
 * The stamp at the front of a produced record's value: the producer's
 * name, the key's sequence number and the intended send time, which a
 * member copies into its {@code processed} events. The layout is the Go
 * producer's (package internal/stamp, docs/history.md), integers
 * big-endian: "cb", version 1, the name's length n (one byte), seq (8
 * bytes), intended_t (8 bytes, ns), sent_t (8 bytes, ns: the producer's
 * own, which a member does not record), the name (n bytes).
 */
final class Stamp {
    private static final int FIXED = 28;
    private static final long MAX_T = 1L << 62;

    private Stamp() {}

    /**
     * Fills the event's producer, seq and intended time from the record's
     * value; a value without a whole stamp within bounds (another
     * producer's record) leaves them empty, as the Go members do.
     */
    static void read(byte[] v, History.Event e) {
        if (v == null || v.length < FIXED || v[0] != 'c' || v[1] != 'b' || v[2] != 1) {
            return;
        }
        int n = v[3] & 0xff;
        if (v.length < FIXED + n) {
            return;
        }
        long seq = readLong(v, 4);
        long intended = readLong(v, 12);
        long sent = readLong(v, 20);
        if (seq < 0 || intended < 0 || intended >= MAX_T || sent < 0 || sent >= MAX_T) {
            return;
        }
        e.producer = new String(v, FIXED, n, StandardCharsets.UTF_8);
        e.seq = seq;
        e.intendedT = intended;
    }

    private static long readLong(byte[] v, int at) {
        long x = 0;
        for (int i = at; i < at + 8; i++) {
            x = (x << 8) | (v[i] & 0xff);
        }
        return x;
    }
}
