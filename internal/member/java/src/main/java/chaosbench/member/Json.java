package chaosbench.member;

import java.util.Map;

/**
 * A minimal JSON encoder for --print-config (maps, strings, numbers and
 * booleans), and a decoder of the one shape the member reads: an object
 * of strings (the secret properties the driver passes in the environment).
 */
final class Json {
    private Json() {}

    /** Decodes a JSON object whose values are strings; anything else is an error. */
    static Map<String, String> decodeStrings(String s) {
        Map<String, String> out = new java.util.TreeMap<>();
        int[] at = {skip(s, 0)};
        expect(s, at, '{');
        if (peek(s, at) == '}') {
            at[0]++;
        } else {
            while (true) {
                String k = readString(s, at);
                expect(s, at, ':');
                out.put(k, readString(s, at));
                char c = peek(s, at);
                at[0]++;
                if (c == '}') {
                    break;
                }
                if (c != ',') {
                    throw new IllegalArgumentException("expected , or } at offset " + (at[0] - 1));
                }
            }
        }
        if (skip(s, at[0]) != s.length()) {
            throw new IllegalArgumentException("unexpected text after the object");
        }
        return out;
    }

    private static int skip(String s, int i) {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        return i;
    }

    private static char peek(String s, int[] at) {
        at[0] = skip(s, at[0]);
        if (at[0] >= s.length()) {
            throw new IllegalArgumentException("unexpected end");
        }
        return s.charAt(at[0]);
    }

    private static void expect(String s, int[] at, char c) {
        if (peek(s, at) != c) {
            throw new IllegalArgumentException("expected " + c + " at offset " + at[0]);
        }
        at[0]++;
    }

    private static String readString(String s, int[] at) {
        expect(s, at, '"');
        StringBuilder b = new StringBuilder();
        int i = at[0];
        while (true) {
            if (i >= s.length()) {
                throw new IllegalArgumentException("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                break;
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (i >= s.length()) {
                throw new IllegalArgumentException("unterminated escape");
            }
            char e = s.charAt(i++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (i + 4 > s.length()) {
                        throw new IllegalArgumentException("short \\u escape");
                    }
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> throw new IllegalArgumentException("bad escape \\" + e);
            }
        }
        at[0] = i;
        return b.toString();
    }

    static String encode(Object v) {
        StringBuilder b = new StringBuilder();
        write(b, v);
        return b.toString();
    }

    private static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else {
            string(b, v.toString());
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
