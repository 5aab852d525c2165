package member

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/testcert"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

// The connection-level properties by librdkafka's names, translated
// (kafkaconf.JavaProps), are what Kafka's Java client loads: its key and
// trust stores from the PEM given, and the JAAS configuration made of
// the user and password or of the unsecured token. Broken material is
// refused by the java cell check, before a run, naming what is wrong and
// never quoting a secret; and a java member's command line holds none.
func TestJavaSecurityCheck(t *testing.T) {
	requireJava(t)
	const secret = "Zq9-java-secret"
	dir := t.TempDir()
	certs, err := testcert.Make(dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := os.ReadFile(certs.CA)
	mtls := kafkaconf.Props{"security.protocol": "SSL", "ssl.ca.location": certs.CA,
		"ssl.certificate.location": certs.ClientCert, "ssl.key.location": certs.ClientKey, "ssl.key.password": secret,
		"ssl.endpoint.identification.algorithm": "none"}
	scram := kafkaconf.Props{"security.protocol": "SASL_SSL", "ssl.ca.pem": string(ca),
		"sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "alice", "sasl.password": `a"b\` + secret}
	oauth := kafkaconf.Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
		"enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": "principal=alice scope=a,b extension_x=" + secret}
	for name, p := range map[string]kafkaconf.Props{"mtls": mtls, "scram": scram, "oauth": oauth} {
		if err := runJavaCheck(vocab.Range, false, p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		jp, err := p.JavaProps()
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Props: jp}
		if args := strings.Join(cfg.Args(), " "); strings.Contains(args, secret) || strings.Contains(args, "BEGIN") {
			t.Errorf("%s: a secret on the java member's command line: %s", name, args)
		}
	}

	// A key encrypted as PKCS#8 (as openssl writes it by default) goes to
	// Java as it is, with its password, which Java checks.
	if _, err := exec.LookPath("openssl"); err == nil {
		enc := filepath.Join(dir, "client-key-pkcs8.pem")
		clear := filepath.Join(dir, "client-key-clear.pem")
		for _, args := range [][]string{
			{"pkey", "-in", certs.ClientKey, "-passin", "pass:" + secret, "-out", clear},
			{"pkcs8", "-topk8", "-in", clear, "-out", enc, "-passout", "pass:" + secret, "-v2", "aes-256-cbc"},
		} {
			if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
				t.Fatalf("openssl %s: %v\n%s", args[0], err, out)
			}
		}
		p := mtls.Clone()
		p["ssl.key.location"] = enc
		// Java 17 cannot decrypt PBES2, openssl's default: the refusal
		// says what to give instead.
		if err := runJavaCheck(vocab.Range, false, p); err != nil && !strings.Contains(err.Error(), "openssl pkey -traditional") {
			t.Errorf("encrypted PKCS#8 key: %v", err)
		}
		p["ssl.key.password"] = "not-the-password"
		if err := runJavaCheck(vocab.Range, false, p); err == nil || !strings.Contains(err.Error(), "cannot load the TLS key") || strings.Contains(err.Error(), secret) {
			t.Errorf("encrypted PKCS#8 key, wrong password: %v", err)
		}
	}

	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key, _ := os.ReadFile(certs.ServerKeystore) // a PKCS#8 key in clear, then its certificate
	for _, tc := range []struct {
		name  string
		props kafkaconf.Props
		want  []string
	}{
		{"a CA that is no certificate", kafkaconf.Props{"security.protocol": "SSL", "ssl.ca.location": garbage},
			[]string{"security.protocol=SSL", "cannot load the TLS key or trust store"}},
		{"Java's own key store, a key that is no key", kafkaconf.Props{"security.protocol": "SSL", "ssl.keystore.type": "PEM",
			"ssl.keystore.key": "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n", "ssl.keystore.certificate.chain": string(key)},
			[]string{"cannot load the TLS key or trust store"}},
		{"Java's own JAAS configuration, malformed", kafkaconf.Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required password="` + secret},
			[]string{"-X sasl.jaas.config", "cannot read it"}},
		{"SASL without credentials", kafkaconf.Props{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256", "ssl.ca.location": certs.CA},
			[]string{"-X sasl.mechanism=SCRAM-SHA-256: client java: give sasl.username"}},
		{"SASL without a mechanism or credentials", kafkaconf.Props{"security.protocol": "SASL_PLAINTEXT"},
			[]string{"security.protocol=SASL_PLAINTEXT: the java client needs credentials"}},
	} {
		err := runJavaCheck(vocab.Range, false, tc.props)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the refusal quotes the secret: %v", tc.name, err)
		}
		if !slices.ContainsFunc(tc.want, func(w string) bool { return !strings.Contains(err.Error(), w) }) {
			continue
		}
		t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
	}
}
