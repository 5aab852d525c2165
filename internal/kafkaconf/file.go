package kafkaconf

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadFile reads client properties from a file in the format of Java's
// .properties files, the way kcat -F and Kafka's command-line tools
// (--command-config) take them, so that secrets need not be typed on a
// command line:
//
//	# comment (also ! comment); blank lines are skipped
//	security.protocol=SASL_SSL
//	sasl.mechanism: SCRAM-SHA-512
//	sasl.username alice
//	sasl.password=a\=b \
//	    continued
//
// A key ends at the first unescaped '=', ':' or blank; blanks around the
// separator are dropped. A line ending in an odd number of backslashes
// continues on the next one (its leading blanks dropped). Escapes: \t, \n,
// \r, \f, \uXXXX, and a backslash before any other character stands for
// that character. A later line wins over an earlier one with the same key.
//
// Errors name the file and line, never a value: the file holds secrets.
func ReadFile(path string) (Props, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-F %s: %w", path, err)
	}
	p, err := ParseProperties(string(b))
	if err != nil {
		return nil, fmt.Errorf("-F %s:%w", path, err)
	}
	return p, nil
}

// ParseProperties parses the text of a .properties file (ReadFile). An
// error begins with the line number, "3: ...".
func ParseProperties(text string) (Props, error) {
	out := Props{}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		first := i + 1
		line := strings.TrimLeft(lines[i], " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines.
		for continues(line) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + strings.TrimLeft(lines[i], " \t\f")
		}
		if continues(line) {
			line = line[:len(line)-1] // a continuation at the end of the file continues into nothing
		}
		rawKey, rawValue := splitKey(line)
		key, err := unescape(rawKey)
		if err != nil {
			return nil, fmt.Errorf("%d: the key: %v", first, err)
		}
		value, err := unescape(rawValue)
		if err != nil {
			return nil, fmt.Errorf("%d: the value of %s: %v", first, key, err)
		}
		if key == "" {
			return nil, fmt.Errorf("%d: expected key=value, found no key", first)
		}
		out[key] = value
	}
	return out, nil
}

// continues reports whether a line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKey splits a logical line into its raw key and raw value.
func splitKey(line string) (key, value string) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i >= len(line) {
		return line, ""
	}
	key, rest := line[:i], strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}

// unescape resolves the escapes of a .properties key or value.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`\u needs four hexadecimal digits`)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", fmt.Errorf(`\u needs four hexadecimal digits`)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
