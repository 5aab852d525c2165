package kafkaconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// FranzOpts translates the connection-level properties (security
// protocol, TLS, SASL, client.id) into franz-go options, by the names
// Kafka's and librdkafka's clients use, so that one set of -X properties
// reaches a cluster from every client of a run:
//
//   - security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL;
//   - TLS: ssl.ca.location or ssl.ca.pem (else the system's roots),
//     ssl.certificate.location or ssl.certificate.pem with
//     ssl.key.location or ssl.key.pem (a client certificate), and
//     ssl.key.password for a key encrypted the traditional PEM way;
//     ssl.endpoint.identification.algorithm (https, the default: the
//     broker's certificate must name the host; none: the chain is still
//     verified); enable.ssl.certificate.verification=false skips
//     verification altogether;
//   - SASL: sasl.mechanism (or librdkafka's sasl.mechanisms) PLAIN,
//     SCRAM-SHA-256 or SCRAM-SHA-512 with sasl.username and
//     sasl.password; OAUTHBEARER with an unsecured token
//     (enable.sasl.oauthbearer.unsecure.jwt=true and
//     sasl.oauthbearer.config, made the way librdkafka makes it).
//
// Properties outside the connection set are ignored here (the caller
// decides what a producer or consumer does with them). A security
// property franz-go cannot honour (a Java key store, Kerberos, an OIDC
// token endpoint) is an error naming the property and the client, never
// silently dropped: the client would otherwise connect without it.
func (p Props) FranzOpts() ([]kgo.Opt, error) {
	if err := p.checkFranzKeys(); err != nil {
		return nil, err
	}
	var opts []kgo.Opt
	useTLS, useSASL, err := p.protocol()
	if err != nil {
		return nil, err
	}
	if useTLS {
		cfg, err := p.tlsConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if useSASL {
		mech, err := p.saslMechanism()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(mech))
	}
	if id := p["client.id"]; id != "" {
		opts = append(opts, kgo.ClientID(id))
	}
	return opts, nil
}

// franzKeys are the security properties FranzOpts honours.
var franzKeys = map[string]bool{
	"security.protocol": true, "sasl.mechanism": true, "sasl.mechanisms": true,
	"sasl.username": true, "sasl.password": true,
	"enable.sasl.oauthbearer.unsecure.jwt": true, "sasl.oauthbearer.config": true,
	"sasl.oauthbearer.method": true,
	"ssl.ca.location":         true, "ssl.ca.pem": true,
	"ssl.certificate.location": true, "ssl.certificate.pem": true,
	"ssl.key.location": true, "ssl.key.pem": true, "ssl.key.password": true,
	"ssl.endpoint.identification.algorithm": true, "enable.ssl.certificate.verification": true,
}

// franzRefused says, for the security properties a franz-go client here
// cannot apply, what to use instead.
var franzRefused = []struct{ prefix, instead string }{
	{"ssl.keystore.", "a key store is Java's or librdkafka's (PKCS#12): give the certificate and key as PEM, ssl.certificate.location and ssl.key.location"},
	{"ssl.truststore.", "a trust store is Java's: give the CA certificates as PEM, ssl.ca.location"},
	{"sasl.jaas.config", "JAAS is Java's: give sasl.mechanism, sasl.username and sasl.password"},
	{"sasl.kerberos.", "Kerberos (GSSAPI) is not supported by the franz client here"},
	{"sasl.oauthbearer.", "the franz client here takes an unsecured token (enable.sasl.oauthbearer.unsecure.jwt=true, sasl.oauthbearer.config); it does not fetch tokens from an OIDC endpoint: use the confluent client"},
	{"ssl.", "not supported by the franz client here"},
	{"sasl.", "not supported by the franz client here"},
}

// checkFranzKeys refuses security properties FranzOpts cannot apply.
func (p Props) checkFranzKeys() error {
	keys := slices.Sorted(maps.Keys(p))
	for _, k := range keys {
		if franzKeys[k] {
			continue
		}
		for _, r := range franzRefused {
			if strings.HasPrefix(k, r.prefix) {
				return fmt.Errorf("-X %s: client franz: %s", k, r.instead)
			}
		}
	}
	if m := p["sasl.oauthbearer.method"]; m != "" && !strings.EqualFold(m, "default") {
		return fmt.Errorf("-X sasl.oauthbearer.method=%s: client franz: it does not fetch tokens from an OIDC endpoint: use the confluent client, or an unsecured token (enable.sasl.oauthbearer.unsecure.jwt=true)", m)
	}
	return nil
}

// protocol reads security.protocol.
func (p Props) protocol() (useTLS, useSASL bool, err error) {
	switch strings.ToUpper(p["security.protocol"]) {
	case "", "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return false, false, fmt.Errorf("-X security.protocol=%s: expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", p["security.protocol"])
	}
	return useTLS, useSASL, nil
}

// pemProp returns the PEM text of a property given either as a file
// (name.location) or inline (name.pem), and which of the two it was.
func (p Props) pemProp(name string) (text []byte, from string, err error) {
	loc, inline := p[name+".location"], p[name+".pem"]
	switch {
	case loc != "" && inline != "":
		return nil, "", fmt.Errorf("-X %s.location and %s.pem: give one of the two", name, name)
	case loc != "":
		b, err := os.ReadFile(loc)
		if err != nil {
			return nil, "", fmt.Errorf("-X %s.location: %w", name, err)
		}
		return b, name + ".location", nil
	case inline != "":
		return []byte(inline), name + ".pem", nil
	}
	return nil, "", nil
}

// tlsConfig builds the TLS configuration of an SSL or SASL_SSL client.
func (p Props) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	ca, caFrom, err := p.pemProp("ssl.ca")
	if err != nil {
		return nil, err
	}
	if ca != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("-X %s: no PEM certificate found", caFrom)
		}
		cfg.RootCAs = pool
	}
	cert, certFrom, err := p.pemProp("ssl.certificate")
	if err != nil {
		return nil, err
	}
	key, keyFrom, err := p.pemProp("ssl.key")
	if err != nil {
		return nil, err
	}
	switch {
	case cert != nil && key != nil:
		key, err = decryptKey(key, keyFrom, p["ssl.key.password"])
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("-X %s and %s: %w", certFrom, keyFrom, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case cert != nil:
		return nil, fmt.Errorf("-X %s: a client certificate needs its key, ssl.key.location or ssl.key.pem", certFrom)
	case key != nil:
		return nil, fmt.Errorf("-X %s: a client key needs its certificate, ssl.certificate.location or ssl.certificate.pem", keyFrom)
	}
	verify := p["enable.ssl.certificate.verification"]
	switch strings.ToLower(verify) {
	case "", "true":
	case "false":
		cfg.InsecureSkipVerify = true
		return cfg, nil
	default:
		return nil, fmt.Errorf("-X enable.ssl.certificate.verification=%s: expected true or false", verify)
	}
	switch alg := p["ssl.endpoint.identification.algorithm"]; strings.ToLower(alg) {
	case "", "https":
		// Go checks the host name against the certificate; franz-go sets
		// the server name to each broker's host.
	case "none":
		// The chain is verified, the host name is not.
		cfg.InsecureSkipVerify = true
		roots := cfg.RootCAs
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return verifyChain(raw, roots)
		}
	default:
		return nil, fmt.Errorf("-X ssl.endpoint.identification.algorithm=%s: expected https or none", alg)
	}
	return cfg, nil
}

// verifyChain verifies a peer's certificate chain against roots (nil: the
// system's), without a host name.
func verifyChain(raw [][]byte, roots *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("tls: the broker sent no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, b := range raw {
		c, err := x509.ParseCertificate(b)
		if err != nil {
			return fmt.Errorf("tls: broker certificate: %w", err)
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	return err
}

// decryptKey returns a PEM private key in clear. A key encrypted the
// traditional way (Proc-Type: 4,ENCRYPTED, as openssl writes with
// -traditional or older versions) is decrypted with ssl.key.password; an
// encrypted PKCS#8 key (ENCRYPTED PRIVATE KEY) is refused, since Go's
// standard library cannot read it.
func decryptKey(key []byte, from, password string) ([]byte, error) {
	var out []byte
	rest := key
	found := false
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if !strings.Contains(b.Type, "PRIVATE KEY") {
			continue
		}
		found = true
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			return nil, fmt.Errorf("-X %s: an encrypted PKCS#8 key, which the franz client cannot read: convert it (openssl pkey -in KEY -traditional -aes256) or use the confluent client", from)
		case x509.IsEncryptedPEMBlock(b):
			// Deprecated in Go for its weak design, but it is the format
			// openssl -traditional writes and librdkafka reads: it is read
			// here only to accept the same files as the other client.
			if password == "" {
				return nil, fmt.Errorf("-X %s: the key is encrypted: give its password, ssl.key.password", from)
			}
			der, err := x509.DecryptPEMBlock(b, []byte(password))
			if err != nil {
				return nil, fmt.Errorf("-X ssl.key.password: does not decrypt the key of %s", from)
			}
			out = append(out, pem.EncodeToMemory(&pem.Block{Type: b.Type, Bytes: der})...)
		default:
			out = append(out, pem.EncodeToMemory(b)...)
		}
	}
	if !found {
		return nil, fmt.Errorf("-X %s: no PEM private key found", from)
	}
	return out, nil
}

// saslMechanism builds the SASL mechanism of a SASL_PLAINTEXT or SASL_SSL
// client.
func (p Props) saslMechanism() (sasl.Mechanism, error) {
	mech := p["sasl.mechanism"]
	if mech == "" {
		mech = p["sasl.mechanisms"] // librdkafka's name
	}
	user, pass := p["sasl.username"], p["sasl.password"]
	switch strings.ToUpper(mech) {
	case "PLAIN", "":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	case "OAUTHBEARER":
		return p.unsecuredOauth()
	}
	return nil, fmt.Errorf("-X sasl.mechanism=%s: client franz: expected PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER", mech)
}

// unsecuredOauth returns an OAUTHBEARER mechanism that presents an
// unsecured JWT (alg "none"), made from sasl.oauthbearer.config the way
// librdkafka makes it with enable.sasl.oauthbearer.unsecure.jwt
// (unsecuredToken).
// Such tokens are for development clusters (Kafka's unsecured validator);
// a production cluster's tokens come from an OIDC endpoint, which only
// the confluent client fetches.
func (p Props) unsecuredOauth() (sasl.Mechanism, error) {
	if !strings.EqualFold(p["enable.sasl.oauthbearer.unsecure.jwt"], "true") {
		return nil, errors.New("-X sasl.mechanism=OAUTHBEARER: client franz: it presents an unsecured token only: set enable.sasl.oauthbearer.unsecure.jwt=true and sasl.oauthbearer.config=principal=NAME (or use the confluent client with an OIDC endpoint)")
	}
	t, err := parseUnsecuredToken(p["sasl.oauthbearer.config"])
	if err != nil {
		return nil, err
	}
	return oauth.Oauth(func(context.Context) (oauth.Auth, error) {
		now := time.Now()
		payload := map[string]any{
			t.principalClaim: t.principal,
			"iat":            now.Unix(),
			"exp":            now.Add(time.Duration(t.life) * time.Second).Unix(),
		}
		if t.scope != "" {
			payload[t.scopeClaim] = strings.Split(t.scope, ",")
		}
		body, err := json.Marshal(payload)
		if err != nil {
			return oauth.Auth{}, err
		}
		enc := base64.RawURLEncoding
		token := enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(body) + "."
		return oauth.Auth{Token: token, Extensions: t.ext}, nil
	}), nil
}
