// Package kafkaconf carries client properties from the command line to the
// clients, using Kafka's own property names, the way kcat takes
// -X key=value.
//
// The same properties drive both clients chaosbench runs: confluent-kafka-go
// takes them as they are (librdkafka speaks Kafka's names), and franz-go gets
// the connection-level subset (security protocol, SASL, TLS) translated into
// kgo options. A property franz-go cannot honour is an error, never silently
// dropped.
package kafkaconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Props is a set of Kafka client properties, keyed by their Kafka names
// (bootstrap.servers, security.protocol, sasl.mechanism, ...).
type Props map[string]string

// ParseProp parses one "key=value" as given to -X. The value may contain
// '='; the key may not be empty.
func ParseProp(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", "", fmt.Errorf("-X %q: expected key=value, e.g. -X security.protocol=SASL_SSL", s)
	}
	return k, v, nil
}

// Flag is a flag.Value collecting repeated -X key=value options.
type Flag struct{ Props Props }

func (f *Flag) String() string {
	if f == nil || len(f.Props) == 0 {
		return ""
	}
	return f.Props.String()
}

// Set implements flag.Value.
func (f *Flag) Set(s string) error {
	k, v, err := ParseProp(s)
	if err != nil {
		return err
	}
	if f.Props == nil {
		f.Props = Props{}
	}
	f.Props[k] = v
	return nil
}

// String renders the properties sorted by key, with secrets masked.
func (p Props) String() string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := p[k]
		if isSecret(k) {
			v = "***"
		}
		fmt.Fprintf(&b, "%s=%s", k, v)
	}
	return b.String()
}

// Redacted returns a copy safe to record in a results folder: secrets are
// replaced by "***".
func (p Props) Redacted() map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		if isSecret(k) {
			v = "***"
		}
		out[k] = v
	}
	return out
}

func isSecret(key string) bool {
	return strings.Contains(key, "password") || strings.Contains(key, "secret") ||
		strings.HasSuffix(key, ".key.pem") || strings.Contains(key, "jaas")
}

// Clone returns an independent copy.
func (p Props) Clone() Props {
	out := make(Props, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// connectionKeys are the properties that describe how to reach the cluster
// (as opposed to how a producer or consumer behaves). Only these are
// translated for franz-go.
var connectionKeys = map[string]bool{
	"security.protocol":        true,
	"sasl.mechanism":           true,
	"sasl.mechanisms":          true,
	"sasl.username":            true,
	"sasl.password":            true,
	"ssl.ca.location":          true,
	"ssl.certificate.location": true,
	"ssl.key.location":         true,
	"client.id":                true,
}

// IsConnectionKey reports whether key is a connection-level property.
func IsConnectionKey(key string) bool { return connectionKeys[key] }

// Connection returns only the connection-level properties of p: the ones
// every client of a run shares.
func (p Props) Connection() Props {
	out := Props{}
	for k, v := range p {
		if connectionKeys[k] {
			out[k] = v
		}
	}
	return out
}

// FranzOpts translates the connection-level properties into franz-go
// options. Keys outside the connection set are ignored here (the caller
// decides what a producer or consumer does with them); an unsupported value
// of a connection key is an error naming the key.
func (p Props) FranzOpts() ([]kgo.Opt, error) {
	var opts []kgo.Opt
	proto := strings.ToUpper(p["security.protocol"])
	if proto == "" {
		proto = "PLAINTEXT"
	}
	var useTLS, useSASL bool
	switch proto {
	case "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return nil, fmt.Errorf("-X security.protocol=%s: expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", p["security.protocol"])
	}
	if useTLS {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if ca := p["ssl.ca.location"]; ca != "" {
			pem, err := os.ReadFile(ca)
			if err != nil {
				return nil, fmt.Errorf("-X ssl.ca.location: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("-X ssl.ca.location=%s: no PEM certificate found", ca)
			}
			cfg.RootCAs = pool
		}
		if cert, key := p["ssl.certificate.location"], p["ssl.key.location"]; cert != "" || key != "" {
			pair, err := tls.LoadX509KeyPair(cert, key)
			if err != nil {
				return nil, fmt.Errorf("-X ssl.certificate.location/ssl.key.location: %w", err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if useSASL {
		mech := p["sasl.mechanism"]
		if mech == "" {
			mech = p["sasl.mechanisms"]
		}
		user, pass := p["sasl.username"], p["sasl.password"]
		switch strings.ToUpper(mech) {
		case "PLAIN", "":
			opts = append(opts, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
		case "SCRAM-SHA-256":
			opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
		case "SCRAM-SHA-512":
			opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
		default:
			return nil, fmt.Errorf("-X sasl.mechanism=%s: franz-go clients here support PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512", mech)
		}
	}
	if id := p["client.id"]; id != "" {
		opts = append(opts, kgo.ClientID(id))
	}
	return opts, nil
}
