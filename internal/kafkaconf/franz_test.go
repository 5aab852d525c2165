package kafkaconf

import (
	"crypto/tls"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/testcert"
)

// What a franz-go client cannot apply is refused, naming the property and
// the client, never dropped.
func TestFranzRefusesWhatItCannotApply(t *testing.T) {
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{"security.protocol": "SSL", "ssl.keystore.location": "k.p12"}, "-X ssl.keystore.location: client franz"},
		{Props{"security.protocol": "SSL", "ssl.truststore.location": "t.jks"}, "-X ssl.truststore.location: client franz"},
		{Props{"sasl.jaas.config": "x"}, "-X sasl.jaas.config: client franz"},
		{Props{"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI"}, "sasl.mechanism=GSSAPI: client franz"},
		{Props{"sasl.kerberos.service.name": "kafka"}, "-X sasl.kerberos.service.name: client franz"},
		{Props{"sasl.oauthbearer.method": "oidc"}, "sasl.oauthbearer.method=oidc: client franz"},
		{Props{"sasl.oauthbearer.token.endpoint.url": "https://idp"}, "-X sasl.oauthbearer.token.endpoint.url: client franz"},
		{Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER"}, "enable.sasl.oauthbearer.unsecure.jwt=true"},
		{Props{"security.protocol": "KERBEROS"}, "security.protocol"},
		{Props{"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "dns"}, "ssl.endpoint.identification.algorithm=dns"},
		{Props{"security.protocol": "SSL", "ssl.ca.location": "/nonexistent/ca.pem"}, "-X ssl.ca.location"},
		{Props{"security.protocol": "SSL", "ssl.ca.location": "x", "ssl.ca.pem": "y"}, "give one of the two"},
	} {
		_, err := tc.props.FranzOpts()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.props, err, tc.want)
		}
	}
	for _, ok := range []Props{
		{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512"},
		{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "SCRAM-SHA-256"},
		{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "fetch.max.wait.ms": "10"},
		{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt": "true",
			"sasl.oauthbearer.config": "principal=admin scope=a,b lifeSeconds=60 extension_traceId=1"},
		{"security.protocol": "SSL"},
	} {
		if _, err := ok.FranzOpts(); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
}

// The TLS configuration verifies the broker's certificate against
// ssl.ca.location (with the host name, or without under
// ssl.endpoint.identification.algorithm=none), presents the client's
// certificate, and decrypts its key with ssl.key.password.
func TestFranzTLS(t *testing.T) {
	certs, err := testcert.Make(t.TempDir(), "key-pass")
	if err != nil {
		t.Fatal(err)
	}
	server, err := tls.LoadX509KeyPair(certs.ServerKeystore, certs.ServerKeystore)
	if err != nil {
		t.Fatal(err)
	}
	base := Props{"security.protocol": "SSL", "ssl.ca.location": certs.CA,
		"ssl.certificate.location": certs.ClientCert, "ssl.key.location": certs.ClientKey, "ssl.key.password": "key-pass"}

	cfg, err := base.tlsConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Certificates) != 1 {
		t.Fatalf("client certificate not loaded")
	}
	handshake := func(cfg *tls.Config, serverName string) error {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{server}, ClientAuth: tls.RequireAnyClientCert})
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err == nil {
				_ = c.(*tls.Conn).Handshake()
				c.Close()
			}
		}()
		c := cfg.Clone()
		c.ServerName = serverName // as franz-go sets it: the broker's host
		conn, err := tls.Dial("tcp", ln.Addr().String(), c)
		if err == nil {
			conn.Close()
		}
		return err
	}
	if err := handshake(cfg, "127.0.0.1"); err != nil {
		t.Errorf("https to 127.0.0.1: %v", err)
	}
	if err := handshake(cfg, "broker.example"); err == nil {
		t.Error("https accepted a certificate that does not name the host")
	}
	none := base.Clone()
	none["ssl.endpoint.identification.algorithm"] = "none"
	cfgNone, err := none.tlsConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(cfgNone, "broker.example"); err != nil {
		t.Errorf("none: the chain is good, the name is not checked: %v", err)
	}
	noCA := none.Clone()
	delete(noCA, "ssl.ca.location")
	cfgNoCA, _ := noCA.tlsConfig()
	if err := handshake(cfgNoCA, "127.0.0.1"); err == nil {
		t.Error("none without the CA accepted an unknown authority")
	}
	// Inline PEM works as the files do.
	pemProps := Props{"security.protocol": "SSL"}
	for name, path := range map[string]string{"ssl.ca.pem": certs.CA, "ssl.certificate.pem": certs.ClientCert, "ssl.key.pem": certs.ClientKey} {
		b, _ := os.ReadFile(path)
		pemProps[name] = string(b)
	}
	pemProps["ssl.key.password"] = "key-pass"
	if cfgPEM, err := pemProps.tlsConfig(); err != nil || handshake(cfgPEM, "127.0.0.1") != nil {
		t.Errorf("inline PEM: %v", err)
	}
	for name, edit := range map[string]func(Props){
		"wrong password":   func(p Props) { p["ssl.key.password"] = "nope" },
		"missing password": func(p Props) { delete(p, "ssl.key.password") },
		"key alone":        func(p Props) { delete(p, "ssl.certificate.location") },
	} {
		p := base.Clone()
		edit(p)
		_, err := p.tlsConfig()
		if err == nil || strings.Contains(err.Error(), "key-pass") || strings.Contains(err.Error(), "nope") {
			t.Errorf("%s: %v (want an error without the password)", name, err)
		}
	}
}

// The unsecured token is a JWT with alg none and the principal as sub.
func TestUnsecuredToken(t *testing.T) {
	p := Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt": "true",
		"sasl.oauthbearer.config": "principal=alice scope=read,write"}
	m, err := p.saslMechanism()
	if err != nil {
		t.Fatal(err)
	}
	_, first, err := m.Authenticate(t.Context(), "127.0.0.1:9092")
	if err != nil {
		t.Fatal(err)
	}
	// n,,\x01auth=Bearer <header>.<payload>.\x01\x01
	s := string(first)
	i := strings.Index(s, "auth=Bearer ")
	if i < 0 {
		t.Fatalf("no bearer token in %q", s)
	}
	tok := strings.Split(strings.TrimRight(s[i+len("auth=Bearer "):], "\x01"), ".")
	if len(tok) != 3 || tok[2] != "" {
		t.Fatalf("token %q: want header.payload. (no signature)", tok)
	}
	payload, _ := base64URL(tok[1])
	for _, want := range []string{`"sub":"alice"`, `"scope":["read","write"]`, `"exp":`, `"iat":`} {
		if !strings.Contains(payload, want) {
			t.Errorf("payload %s lacks %s", payload, want)
		}
	}
}

func base64URL(s string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return string(b), err
}

// TestUnsecuredTokenRefuses: sasl.oauthbearer.config is refused, with
// the field and what was expected, for every client that reads it.
func TestUnsecuredTokenRefuses(t *testing.T) {
	for config, want := range map[string]string{
		"scope=a":                                      "principal=NAME is required",
		"principal=a lifeSeconds=0":                    `lifeSeconds: got "0", expected a whole number of seconds from 1 to 2147483647`,
		"principal=a lifeSeconds=-5":                   `lifeSeconds: got "-5"`,
		"principal=a lifeSeconds=2147483648":           `lifeSeconds: got "2147483648"`,
		"principal=a lifeSeconds=99999999999999999999": `lifeSeconds: got "99999999999999999999"`,
		"principal=a lifeSeconds=1h":                   `lifeSeconds: got "1h"`,
		"principal=a colour=blue":                      `unknown field "colour"`,
		"principal=a stray":                            "expected space-separated name=value fields",
	} {
		p := Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt": "true",
			"sasl.oauthbearer.config": config}
		if _, err := p.unsecuredOauth(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("franz, %q: got %v, want an error containing %q", config, err, want)
		}
		if _, err := p.unsecuredJaasOptions(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("java, %q: got %v, want an error containing %q", config, err, want)
		}
	}
	if _, err := parseUnsecuredToken("principal=a lifeSeconds=2147483647"); err != nil {
		t.Errorf("the longest life: %v", err)
	}
}
