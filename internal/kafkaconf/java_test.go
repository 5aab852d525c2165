package kafkaconf

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/testcert"
)

// Each librdkafka-style setting becomes Kafka's Java names, exactly; what
// Java already names passes through; nothing is left behind.
func TestJavaPropsTranslates(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Props
		want Props
	}{
		{"scram over TLS, CA file",
			Props{"security.protocol": "SASL_SSL", "ssl.ca.location": "CA", "sasl.mechanism": "SCRAM-SHA-512",
				"sasl.username": "alice", "sasl.password": "pw", "fetch.max.wait.ms": "100"},
			Props{"security.protocol": "SASL_SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": "CA",
				"sasl.mechanism": "SCRAM-SHA-512", "fetch.max.wait.ms": "100",
				"sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="pw";`}},
		{"plain by librdkafka's sasl.mechanisms, a password to escape",
			Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "plain", "sasl.username": "bob", "sasl.password": `a"b\c` + "\n"},
			Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
				"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="a\"b\\c\n";`}},
		{"no mechanism: PLAIN, as on franz",
			Props{"security.protocol": "SASL_PLAINTEXT", "sasl.username": "bob", "sasl.password": "pw"},
			Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
				"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="pw";`}},
		{"unsecured token",
			Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt": "true",
				"sasl.oauthbearer.config": "principal=alice scope=read,write lifeSeconds=60 extension_traceId=7 principalClaimName=user"},
			Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
				"sasl.jaas.config": `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required` +
					` unsecuredLoginStringClaim_user="alice" unsecuredLoginPrincipalClaimName="user"` +
					` unsecuredLoginListClaim_scope=",read,write" unsecuredLoginLifetimeSeconds="60" unsecuredLoginExtension_traceId="7";`}},
		{"inline CA, no host name check",
			Props{"security.protocol": "SSL", "ssl.ca.pem": "PEM", "ssl.endpoint.identification.algorithm": "none",
				"enable.ssl.certificate.verification": "true"},
			Props{"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.certificates": "PEM",
				"ssl.endpoint.identification.algorithm": ""}},
		{"Java's own names pass through",
			Props{"security.protocol": "SASL_SSL", "ssl.truststore.location": "t.jks", "ssl.truststore.password": "tp",
				"ssl.keystore.location": "k.p12", "ssl.keystore.type": "PKCS12", "ssl.key.password": "kp",
				"sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": "x required;", "ssl.endpoint.identification.algorithm": "https"},
			Props{"security.protocol": "SASL_SSL", "ssl.truststore.location": "t.jks", "ssl.truststore.password": "tp",
				"ssl.keystore.location": "k.p12", "ssl.keystore.type": "PKCS12", "ssl.key.password": "kp",
				"sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": "x required;", "ssl.endpoint.identification.algorithm": "https"}},
		{"default oauthbearer method is no setting",
			Props{"sasl.oauthbearer.method": "default", "client.id": "c"},
			Props{"client.id": "c"}},
	} {
		in := tc.in.Clone()
		if p := in["ssl.ca.location"]; p != "" {
			in["ssl.ca.location"] = caFile(t)
			tc.want["ssl.truststore.location"] = in["ssl.ca.location"]
		}
		got, err := in.JavaProps()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
}

// caFile writes a CA certificate for the tests.
func caFile(t *testing.T) string {
	t.Helper()
	certs, err := testcert.Make(t.TempDir(), "k")
	if err != nil {
		t.Fatal(err)
	}
	return certs.CA
}

// A client certificate and key become a PEM key store: the key, whatever
// its PEM form, as PKCS#8 in clear (the traditional encryption undone
// with ssl.key.password, which is then dropped), an encrypted PKCS#8 key
// as it is, with its password.
func TestJavaPropsKeystore(t *testing.T) {
	dir := t.TempDir()
	certs, err := testcert.Make(dir, "key-pass")
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := os.ReadFile(certs.ClientCert)
	p := Props{"security.protocol": "SSL", "ssl.ca.location": certs.CA,
		"ssl.certificate.location": certs.ClientCert, "ssl.key.location": certs.ClientKey, "ssl.key.password": "key-pass"}
	got, err := p.JavaProps()
	if err != nil {
		t.Fatal(err)
	}
	if got["ssl.keystore.type"] != "PEM" || got["ssl.keystore.certificate.chain"] != string(cert) {
		t.Errorf("key store: %v", got.Redacted())
	}
	if _, ok := got["ssl.key.password"]; ok {
		t.Error("ssl.key.password kept for a key handed over in clear")
	}
	for _, k := range []string{"ssl.certificate.location", "ssl.key.location", "ssl.ca.location"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s left in the Java properties", k)
		}
	}
	key := pkcs8Key(t, got["ssl.keystore.key"])
	leaf, _ := pem.Decode(cert)
	c, err := x509.ParseCertificate(leaf.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !key.(*ecdsa.PrivateKey).PublicKey.Equal(c.PublicKey) {
		t.Error("the PKCS#8 key is not the certificate's")
	}
	for _, k := range []string{"ssl.keystore.key", "ssl.keystore.certificate.chain"} {
		if !IsSecret(k) {
			t.Errorf("%s is not secret: it would go on a command line", k)
		}
	}

	// RSA in clear, the PKCS#1 form: converted.
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)})
	got, err = Props{"ssl.certificate.pem": string(cert), "ssl.key.pem": string(rsaPEM)}.JavaProps()
	if err != nil {
		t.Fatal(err)
	}
	if k := pkcs8Key(t, got["ssl.keystore.key"]); !k.(*rsa.PrivateKey).Equal(rk) {
		t.Error("RSA key changed in conversion")
	}
	// An encrypted PKCS#8 key: Java decrypts it.
	enc := "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBvTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----\n"
	encFile := filepath.Join(dir, "enc.pem")
	if err := os.WriteFile(encFile, []byte(enc), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err = Props{"ssl.certificate.location": certs.ClientCert, "ssl.key.location": encFile, "ssl.key.password": "pw"}.JavaProps()
	if err != nil {
		t.Fatal(err)
	}
	if got["ssl.keystore.key"] != enc || got["ssl.key.password"] != "pw" {
		t.Errorf("encrypted PKCS#8: %q, password %q", got["ssl.keystore.key"], got["ssl.key.password"])
	}
}

func pkcs8Key(t *testing.T, text string) any {
	t.Helper()
	b, rest := pem.Decode([]byte(text))
	if b == nil || b.Type != "PRIVATE KEY" || len(strings.TrimSpace(string(rest))) != 0 {
		t.Fatalf("ssl.keystore.key: want one unencrypted PKCS#8 key, got %q", text)
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// What Kafka's Java client cannot apply is refused, naming the property
// and the client, and never quoting a secret.
func TestJavaPropsRefuses(t *testing.T) {
	dir := t.TempDir()
	certs, err := testcert.Make(dir, "key-pass")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{"enable.ssl.certificate.verification": "false"}, "-X enable.ssl.certificate.verification=false: client java"},
		{Props{"ssl.ca.location": dir}, "-X ssl.ca.location=" + dir + ": client java: a folder"},
		{Props{"ssl.ca.location": "probe"}, "-X ssl.ca.location=probe: client java"},
		{Props{"ssl.ca.location": "/nonexistent/ca.pem"}, "-X ssl.ca.location"},
		{Props{"ssl.ca.location": certs.CA, "ssl.truststore.type": "JKS"}, "-X ssl.ca.location and ssl.truststore.type: client java: give one of the two"},
		{Props{"sasl.username": "u", "sasl.password": "secret-pw", "sasl.jaas.config": "x"}, "-X sasl.username and sasl.jaas.config: client java"},
		{Props{"sasl.mechanisms": "PLAIN", "sasl.mechanism": "PLAIN"}, "give one of the two"},
		{Props{"ssl.crl.location": "crl.pem"}, "-X ssl.crl.location: client java"},
		{Props{"sasl.kerberos.keytab": "k"}, "-X sasl.kerberos.keytab: client java: Kafka's Java client takes Kerberos from sasl.jaas.config"},
		{Props{"sasl.oauthbearer.method": "oidc"}, "-X sasl.oauthbearer.method=oidc: client java"},
		{Props{"sasl.oauthbearer.token.endpoint.url": "https://idp"}, "-X sasl.oauthbearer.token.endpoint.url: client java"},
		{Props{"sasl.mechanism": "OAUTHBEARER"}, "-X sasl.mechanism=OAUTHBEARER: client java"},
		{Props{"sasl.mechanism": "OAUTHBEARER", "enable.sasl.oauthbearer.unsecure.jwt": "true"}, "principal=NAME is required"},
		{Props{"sasl.mechanism": "SCRAM-SHA-256"}, "-X sasl.mechanism=SCRAM-SHA-256: client java: give sasl.username"},
		{Props{"sasl.mechanism": "GSSAPI", "sasl.username": "u", "sasl.password": "secret-pw"}, "-X sasl.mechanism=GSSAPI: client java"},
		{Props{"ssl.endpoint.identification.algorithm": "dns"}, "ssl.endpoint.identification.algorithm=dns"},
		{Props{"ssl.certificate.location": certs.ClientCert}, "a client certificate needs its key"},
		{Props{"ssl.certificate.location": certs.ClientCert, "ssl.key.location": certs.ClientKey}, "give its password, ssl.key.password"},
		{Props{"ssl.certificate.location": certs.ClientCert, "ssl.key.location": certs.ClientKey, "ssl.key.password": "secret-pw"}, "-X ssl.key.password: does not decrypt"},
		{Props{"ssl.certificate.location": certs.ClientCert, "ssl.key.location": certs.CA}, "no PEM private key"},
	} {
		_, err := tc.props.JavaProps()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.props.Redacted(), err, tc.want)
		} else if strings.Contains(err.Error(), "secret-pw") {
			t.Errorf("%v: the error quotes the password: %v", tc.props.Redacted(), err)
		}
	}
}
