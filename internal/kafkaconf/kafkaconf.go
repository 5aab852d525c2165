// Package kafkaconf carries client properties from the command line to the
// clients, using Kafka's own property names, the way kcat takes them:
// -X key=value, and -F FILE for a .properties file (file.go), so that
// secrets need not be typed on a command line.
//
// The same properties drive every client chaosbench runs: confluent-kafka-go
// takes them as they are (librdkafka speaks Kafka's names), franz-go gets
// the connection-level subset (security protocol, SASL, TLS) translated into
// kgo options (franz.go), and Kafka's Java client gets that subset
// translated from librdkafka's names into its own (java.go). A property a client cannot honour is an error
// naming the property and the client, never silently dropped. Which
// properties are secret, and so never recorded or printed in clear, is
// decided in one place, IsSecret (secret.go).
package kafkaconf

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Props is a set of Kafka client properties, keyed by their Kafka names
// (bootstrap.servers, security.protocol, sasl.mechanism, ...).
type Props map[string]string

// ParseProp parses one "key=value" as given to -X. The value may contain
// '='; the key may not be empty. An error never shows the value: it may
// be a secret.
func ParseProp(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok {
		return "", "", fmt.Errorf("-X %q: expected key=value, e.g. -X security.protocol=SASL_SSL", s)
	}
	if k == "" {
		return "", "", fmt.Errorf("-X: expected key=value, found no key before '='")
	}
	return k, v, nil
}

// Flag collects a command's client properties: -X key=value (repeatable)
// and -F FILE (repeatable, a .properties file). Properties given with -X
// win over those from files, whatever the order on the command line;
// among files, the later wins. Props is the merged result, kept current
// as flags are parsed.
type Flag struct {
	Props Props
	x     Props
	file  Props
}

// Register adds -X and -F to fs.
func (f *Flag) Register(fs *flag.FlagSet) {
	fs.Var(f, "X", "client property key=value for every client, repeatable, as kcat -X (e.g. -X security.protocol=SASL_SSL); wins over -F")
	fs.Var(fileFlag{f}, "F", "read client properties from this .properties file (key=value lines, # comments), repeatable, as kcat -F: keeps secrets off the command line")
}

func (f *Flag) String() string {
	if f == nil || len(f.Props) == 0 {
		return ""
	}
	return f.Props.String()
}

// Set implements flag.Value for -X.
func (f *Flag) Set(s string) error {
	k, v, err := ParseProp(s)
	if err != nil {
		return err
	}
	if f.x == nil {
		f.x = Props{}
	}
	f.x[k] = v
	f.merge()
	return nil
}

func (f *Flag) merge() {
	f.Props = Props{}
	for k, v := range f.file {
		f.Props[k] = v
	}
	for k, v := range f.x {
		f.Props[k] = v
	}
}

// fileFlag is -F: a file whose properties join the Flag's.
type fileFlag struct{ f *Flag }

func (ff fileFlag) String() string { return "" }

func (ff fileFlag) Set(path string) error {
	p, err := ReadFile(path)
	if err != nil {
		return err
	}
	if ff.f.file == nil {
		ff.f.file = Props{}
	}
	for k, v := range p {
		ff.f.file[k] = v
	}
	ff.f.merge()
	return nil
}

// String renders the properties sorted by key, with secrets masked.
func (p Props) String() string {
	keys := slices.Sorted(maps.Keys(p))
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := p[k]
		if IsSecret(k) {
			v = Mask
		}
		fmt.Fprintf(&b, "%s=%s", k, v)
	}
	return b.String()
}

// Redacted returns a copy safe to record in a results folder: secrets are
// replaced by Mask.
func (p Props) Redacted() map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		if IsSecret(k) {
			v = Mask
		}
		out[k] = v
	}
	return out
}

// Secrets returns the secret properties of p (IsSecret), and Public the
// others: what may go on a command line and what may not.
func (p Props) Secrets() Props { return p.filter(true) }

// Public returns the properties of p that are not secret.
func (p Props) Public() Props { return p.filter(false) }

func (p Props) filter(secret bool) Props {
	out := Props{}
	for k, v := range p {
		if IsSecret(k) == secret {
			out[k] = v
		}
	}
	return out
}

// Clone returns an independent copy.
func (p Props) Clone() Props {
	out := make(Props, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// IsConnectionKey reports whether key is a connection-level property: how
// to reach and authenticate to the cluster (security protocol, TLS, SASL,
// client.id), as opposed to how a producer or consumer behaves. Every
// client of a run shares them.
func IsConnectionKey(key string) bool {
	return key == "client.id" || key == "security.protocol" ||
		strings.HasPrefix(key, "ssl.") || strings.HasPrefix(key, "sasl.") ||
		strings.HasPrefix(key, "enable.ssl.") || strings.HasPrefix(key, "enable.sasl.")
}

// Connection returns only the connection-level properties of p.
func (p Props) Connection() Props {
	out := Props{}
	for k, v := range p {
		if IsConnectionKey(k) {
			out[k] = v
		}
	}
	return out
}
