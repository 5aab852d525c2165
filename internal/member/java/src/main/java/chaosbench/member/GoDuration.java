package chaosbench.member;

/**
 * Durations as Go writes them (time.Duration.String, which member.Config.Args
 * uses): a sequence of decimal numbers, each with an optional fraction and
 * a unit, such as "300ms", "1m30s", "1.5h" or "200µs". This is the reading
 * side of Go's time.ParseDuration, to the nanosecond.
 */
final class GoDuration {
    private GoDuration() {}

    /** Parses s and returns nanoseconds. */
    static long parse(String s) {
        String orig = s;
        boolean neg = false;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            neg = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return 0;
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("invalid duration " + Config.quote(orig));
        }
        // The sum is kept as a double only for the fraction; whole numbers
        // are summed exactly.
        long total = 0;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && Character.isDigit(s.charAt(i))) {
                i++;
            }
            String whole = s.substring(start, i);
            String frac = "";
            if (i < s.length() && s.charAt(i) == '.') {
                int f = ++i;
                while (i < s.length() && Character.isDigit(s.charAt(i))) {
                    i++;
                }
                frac = s.substring(f, i);
            }
            if (whole.isEmpty() && frac.isEmpty()) {
                throw new IllegalArgumentException("invalid duration " + Config.quote(orig));
            }
            int u = i;
            while (i < s.length() && s.charAt(i) != '.' && !Character.isDigit(s.charAt(i))) {
                i++;
            }
            long unit = unit(s.substring(u, i), orig);
            long v = whole.isEmpty() ? 0 : Math.multiplyExact(Long.parseLong(whole), unit);
            if (!frac.isEmpty()) {
                // unit * 0.frac, rounded down as Go does.
                double scale = Math.pow(10, frac.length());
                v = Math.addExact(v, (long) (Long.parseLong(frac) * (unit / scale)));
            }
            total = Math.addExact(total, v);
        }
        return neg ? -total : total;
    }

    private static long unit(String u, String orig) {
        switch (u) {
            case "ns":
                return 1L;
            case "us", "\u00b5s", "\u03bcs": // "us", "µs" (micro sign), "μs" (Greek mu)
                return 1_000L;
            case "ms":
                return 1_000_000L;
            case "s":
                return 1_000_000_000L;
            case "m":
                return 60_000_000_000L;
            case "h":
                return 3_600_000_000_000L;
            case "":
                throw new IllegalArgumentException("missing unit in duration " + Config.quote(orig));
            default:
                throw new IllegalArgumentException("unknown unit " + Config.quote(u) + " in duration " + Config.quote(orig));
        }
    }
}
