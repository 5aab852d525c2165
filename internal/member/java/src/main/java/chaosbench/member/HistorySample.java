package chaosbench.member;

import java.io.IOException;

/**
 * Writes a history with one event of every kind a member writes, every
 * field set, and keys that need escaping, for the test that reads it with
 * the Go reader and compares it byte for byte with what the Go writer
 * writes (internal/member/java_history_test.go):
 *
 * <pre>
 *   HistorySample DIR    writes DIR/m7.2.jsonl
 *   HistorySample DIR URL SKEW_NS
 *                        writes DIR/m8.0.jsonl: the clock measured against
 *                        the time endpoint URL, the clock skewed by SKEW_NS
 * </pre>
 */
final class HistorySample {
    private HistorySample() {}

    public static void main(String[] args) throws IOException {
        if (args.length == 3) {
            Config cfg = new Config();
            cfg.clockUrl = args[1];
            try (History h = History.create(args[0], "m8", 0)) {
                h.skew(Long.parseLong(args[2]));
                ClockMeasure.record(cfg, h);
            }
            return;
        }
        try (History h = History.create(args[0], "m7", 2)) {
            History.Event e = new History.Event("member");
            e.t = 1000;
            e.state = "started";
            e.strategy = "cooperative-sticky";
            e.client = "java";
            e.policy = "async-sync-on-revoke";
            e.group = "group \"g\"";
            e.host = "host-1";
            e.pid = 4242;
            h.append(e);

            e = new History.Event("member");
            e.t = 1001;
            e.state = "joining";
            h.append(e);

            e = new History.Event("assigned");
            e.t = 1002;
            e.topic = "orders";
            e.partitions = new int[] {0, 3, 5};
            e.gen = 7;
            e.memberId = "m7.2-5f1c";
            h.append(e);

            e = new History.Event("processed");
            e.t = 1003;
            e.partition = 3;
            e.offset = 42;
            // a quote, a backslash, a newline, a control character, é, and
            // a byte that is not UTF-8
            e.key = new byte[] {'k', '"', '\\', '\n', 1, (byte) 0xc3, (byte) 0xa9, (byte) 0xff, 'z'};
            e.seq = 9;
            e.producer = "producer-0";
            e.intendedT = 900;
            e.recordT = 950_000_000L;
            h.append(e);

            e = new History.Event("processed");
            e.t = 1004;
            e.key = new byte[] {'a'};
            e.producer = "producer-0";
            h.append(e);
            h.flush(); // one write(2) here, as before a commit

            e = new History.Event("committed");
            e.t = 1005;
            e.partition = 3;
            e.offset = 43;
            h.append(e);

            e = new History.Event("committed");
            e.t = 1005;
            e.partition = 5;
            e.offset = 10;
            e.err = "CommitFailedException: Commit cannot be completed\tsince the group has already rebalanced";
            h.append(e);

            e = new History.Event("committed");
            e.t = 1006;
            e.partition = 0;
            e.offset = 1;
            e.auto = true;
            h.append(e);

            e = new History.Event("txn");
            e.t = 1006;
            e.step = 12;
            e.state = "aborted";
            e.err = "rebalance: ProducerFencedException";
            h.append(e);

            e = new History.Event("revoked");
            e.t = 1007;
            e.topic = "orders";
            e.partitions = new int[] {3};
            e.gen = 7;
            h.append(e);

            e = new History.Event("lost");
            e.t = 1008;
            e.topic = "orders";
            e.partitions = new int[0];
            h.append(e);

            e = new History.Event("member");
            e.t = 999; // a wall-clock step back: clamped to the previous time
            e.state = "stopping";
            h.append(e);

            e = new History.Event("clock");
            e.t = 1010;
            e.clockOffset = -2_000_000_123L;
            e.clockError = 41_500;
            h.append(e);
        }
    }
}
