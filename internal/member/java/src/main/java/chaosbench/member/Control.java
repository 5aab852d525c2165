package chaosbench.member;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The member's side of the control channel over the network, as
 * internal/control speaks it (its package doc states the protocol; Run,
 * Dial and Conn.Serve are the Go member's side): the member connects out
 * to the driver's control endpoint, both sides prove that they hold the
 * run's token, and each command, checked by its seq and MAC, is carried
 * out and acknowledged.
 */
final class Control {
    private Control() {}

    /** control.MaxFrame: a frame's bytes, its newline included. */
    static final int MAX_FRAME = 512;
    /** control.MaxReason. */
    static final int MAX_REASON = 200;
    /** control.HandshakeTimeout, and the bound of an acknowledgement's write. */
    static final int TIMEOUT_MS = 5000;
    /** control.RetryInterval. */
    static final long RETRY_MS = 1000;
    /** The environment variable of the run's token (control.TokenEnv). */
    static final String TOKEN_ENV = "CHAOSBENCH_CONTROL_TOKEN";

    private static final Pattern NONCE = Pattern.compile("[0-9a-f]{32}");
    private static final Pattern MAC = Pattern.compile("[0-9a-f]{64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Carries out a command: null when taken, else why it was refused. */
    interface Handler {
        String apply(String cmd);
    }

    /** A handshake the driver refused, or whose proof did not hold: a retry cannot succeed. */
    static final class Refused extends IOException {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * Connects to the endpoint at addr, serves the driver's commands with
     * handle, and connects again every RETRY_MS when it cannot connect or
     * the connection is lost, until the JVM ends; a refused handshake ends
     * it. log receives each change, not each failed attempt.
     */
    static void run(String addr, String token, String name, int inc, Handler handle, Consumer<String> log) {
        boolean failing = false;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(address(addr), TIMEOUT_MS);
                s.setSoTimeout(TIMEOUT_MS);
                InputStream in = new BufferedInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                byte[] key = handshake(in, out, token, name, inc);
                s.setSoTimeout(0);
                s.setKeepAlive(true);
                log.accept("control: connected to " + addr);
                failing = false;
                try {
                    serve(in, out, key, handle);
                    log.accept("control: connection to " + addr + " lost: EOF");
                } catch (IOException e) {
                    log.accept("control: connection to " + addr + " lost: " + e.getMessage());
                }
            } catch (Refused e) {
                log.accept("control: " + addr + ": " + e.getMessage());
                return;
            } catch (IOException | IllegalArgumentException e) {
                if (!failing) {
                    log.accept("control: cannot connect to " + addr + " (trying again every " + RETRY_MS + "ms): " + e.getMessage());
                    failing = true;
                }
            }
            try {
                Thread.sleep(RETRY_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** host:port, the host maybe an IPv6 address in brackets. */
    static InetSocketAddress address(String addr) {
        int colon = addr.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("address " + Config.quote(addr) + ": expected host:port");
        }
        String host = addr.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, Integer.parseInt(addr.substring(colon + 1)));
    }

    /** The handshake (HELLO, CHALLENGE, AUTH, READY); returns the session key. */
    static byte[] handshake(InputStream in, OutputStream out, String token, String name, int inc) throws IOException {
        byte[] tok = token.getBytes(StandardCharsets.US_ASCII);
        String nonceM = nonce();
        write(out, "HELLO 1 " + name + " " + inc + " " + nonceM);
        String line = readFrame(in);
        if (line == null) {
            throw new IOException("challenge: EOF");
        }
        if (line.startsWith("REFUSED ")) {
            throw new Refused("refused by the driver: " + line.substring(8));
        }
        String[] f = line.split(" ", -1);
        if (f.length != 3 || !f[0].equals("CHALLENGE") || !NONCE.matcher(f[1]).matches() || !MAC.matcher(f[2]).matches()) {
            throw new IOException("malformed frame: expected CHALLENGE");
        }
        String nonceD = f[1];
        if (!equal(f[2], mac(tok, fields("driver", name, inc, nonceM, nonceD)))) {
            throw new Refused("refused: the endpoint could not prove that it holds the run's token");
        }
        write(out, "AUTH " + mac(tok, fields("member", name, inc, nonceM, nonceD)));
        line = readFrame(in);
        if (line == null) {
            throw new IOException("ready: EOF");
        }
        if (line.startsWith("REFUSED ")) {
            throw new Refused("refused by the driver: " + line.substring(8));
        }
        if (!line.equals("READY")) {
            throw new IOException("malformed frame: expected READY");
        }
        return HexFormat.of().parseHex(mac(tok, fields("session", name, inc, nonceM, nonceD)));
    }

    /**
     * Reads the driver's commands until the connection ends (returns) or
     * breaks the protocol (throws): a command out of sequence or whose MAC
     * does not hold is never handed over.
     */
    static void serve(InputStream in, OutputStream out, byte[] key, Handler handle) throws IOException {
        long last = 0;
        String line;
        while ((line = readFrame(in)) != null) {
            String[] f = line.split(" ", 4);
            if (f.length != 4 || !f[0].equals("CMD")) {
                throw new IOException("malformed frame: expected CMD");
            }
            long seq;
            try {
                seq = Long.parseLong(f[1]);
            } catch (NumberFormatException e) {
                throw new IOException("malformed frame: seq " + Config.quote(f[1]));
            }
            if (seq != last + 1) {
                throw new IOException("malformed frame: command " + seq + " after " + last);
            }
            if (!equal(f[2], mac(key, "cmd " + seq + " " + f[3]))) {
                throw new IOException("command " + seq + ": its MAC does not hold");
            }
            last = seq;
            String reason = handle.apply(f[3]);
            String result = reason == null ? "ok" : "error " + clip(reason);
            write(out, "ACK " + seq + " " + mac(key, "ack " + seq + " " + result) + " " + result);
        }
    }

    /** One frame without its newline; null at the end of the stream. */
    static String readFrame(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) {
                if (b.size() > 0) {
                    throw new IOException("EOF within a frame");
                }
                return null;
            }
            if (c == '\n') {
                return b.toString(StandardCharsets.US_ASCII);
            }
            if (b.size() + 2 > MAX_FRAME) {
                throw new IOException("frame longer than " + MAX_FRAME + " bytes");
            }
            if (c < 0x20 || c > 0x7e) {
                throw new IOException("malformed frame: not printable ASCII");
            }
            b.write(c);
        }
    }

    private static void write(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String fields(String label, String name, int inc, String nonceM, String nonceD) {
        return "chaosbench-control " + label + " " + name + " " + inc + " " + nonceM + " " + nonceD;
    }

    /** HMAC-SHA256 of text under key, in hex. */
    static String mac(byte[] key, String text) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return HexFormat.of().formatHex(m.doFinal(text.getBytes(StandardCharsets.US_ASCII)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256: " + e.getMessage(), e);
        }
    }

    /** Compares two MACs in constant time. */
    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }

    private static String nonce() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** A reason cut to MAX_REASON bytes of printable ASCII (control's clipReason). */
    static String clip(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < MAX_REASON; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c > 0x7e ? '?' : c);
        }
        return b.toString();
    }
}
