package chaosbench.member;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * The member's clock against the driver's, as internal/clock measures a
 * Go process's: a few requests to the driver's time endpoint, the
 * midpoint rule on the one of the shortest round trip (the local clock's
 * offset is the midpoint of its send and receive times minus the driver's
 * answer, within half the round trip), recorded as a clock event
 * (docs/history.md).
 */
final class ClockMeasure {
    private ClockMeasure() {}

    /** Requests per measurement (clock.Samples). */
    static final int SAMPLES = 5;
    /** A sample slower than this is discarded (clock.MaxRoundTrip). */
    static final long MAX_ROUND_TRIP_NS = 2_000_000_000L;
    /** The longest answer read (a decimal int64 and a newline). */
    private static final int MAX_ANSWER = 32;

    /**
     * Measures the clock against cfg's endpoint, if it has one, and
     * appends the clock event; a failure is logged, and nothing recorded.
     */
    static void record(Config cfg, History hist) throws IOException {
        if (cfg.clockUrl == null || cfg.clockUrl.isEmpty()) {
            return;
        }
        URL url;
        try {
            url = URI.create(cfg.clockUrl).toURL();
        } catch (IllegalArgumentException | MalformedURLException e) {
            Main.log("clock: endpoint " + cfg.clockUrl + ": " + e.getMessage());
            return;
        }
        // The whole measurement is bounded as the Go side's (5 s): a
        // member stopping must not wait long on an endpoint gone.
        long deadline = System.nanoTime() + 5_000_000_000L;
        boolean found = false;
        long at = 0, offset = 0, error = 0;
        String why = "no sample";
        // One request first, not a sample: a fresh JVM loads and links the
        // HTTP classes on it, and opens the connection the samples reuse
        // (HttpURLConnection keeps it alive; it answers in the calling
        // thread, with no hand-off to a client's own threads to time).
        for (int i = -1; i < SAMPLES && System.nanoTime() < deadline; i++) {
            long t0 = hist.clock();
            long d;
            try {
                d = ask(url);
            } catch (IOException | IllegalArgumentException e) {
                why = e.toString();
                continue;
            }
            long t1 = hist.clock();
            if (i < 0) {
                continue;
            }
            long rtt = t1 - t0;
            if (rtt < 0 || rtt > MAX_ROUND_TRIP_NS) {
                why = "round trip " + rtt + " ns";
                continue;
            }
            long mid = t0 + rtt / 2;
            long err = (rtt + 1) / 2;
            if (!found || err < error) {
                found = true;
                at = mid;
                offset = mid - d;
                error = err;
            }
        }
        if (!found) {
            Main.log("clock: endpoint " + cfg.clockUrl + ": " + why);
            return;
        }
        History.Event e = new History.Event("clock");
        e.t = at;
        e.clockOffset = offset;
        e.clockError = error;
        hist.append(e);
    }

    /** One request: the driver's time. */
    private static long ask(URL url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) url.openConnection();
        int timeout = (int) (MAX_ROUND_TRIP_NS / 1_000_000);
        c.setConnectTimeout(timeout);
        c.setReadTimeout(timeout);
        int status = c.getResponseCode();
        byte[] b;
        try (InputStream in = status == 200 ? c.getInputStream() : c.getErrorStream()) {
            b = in == null ? new byte[0] : in.readNBytes(MAX_ANSWER + 1);
        }
        if (status != 200) {
            throw new IOException("status " + status);
        }
        return parse(b);
    }

    /** The endpoint's answer: Unix nanoseconds, above 0 and below 2^62. */
    static long parse(byte[] b) {
        if (b.length > MAX_ANSWER) {
            throw new IllegalArgumentException("answer longer than " + MAX_ANSWER + " bytes");
        }
        String s = new String(b, StandardCharsets.US_ASCII).strip();
        long d;
        try {
            d = Long.parseLong(s);
        } catch (NumberFormatException e) {
            d = -1;
        }
        if (d <= 0 || d >= 1L << 62) {
            throw new IllegalArgumentException("answer " + Config.quote(s) + ": expected Unix nanoseconds above 0 and below 2^62");
        }
        return d;
    }
}
