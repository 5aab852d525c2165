package kafkaconf

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFlagCollectsProps(t *testing.T) {
	var f Flag
	for _, s := range []string{"security.protocol=SASL_SSL", "sasl.password=a=b", "sasl.username=u"} {
		if err := f.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if f.Props["sasl.password"] != "a=b" {
		t.Errorf("value with '=' split: %q", f.Props["sasl.password"])
	}
	if s := f.String(); strings.Contains(s, "a=b") || !strings.Contains(s, "sasl.password=***") {
		t.Errorf("String leaks or drops the secret: %s", s)
	}
	if err := f.Set("=x"); err == nil {
		t.Error("empty key accepted")
	}
}

func TestFranzOpts(t *testing.T) {
	if _, err := (Props{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512"}).FranzOpts(); err != nil {
		t.Error(err)
	}
	_, err := (Props{"security.protocol": "KERBEROS"}).FranzOpts()
	if err == nil || !strings.Contains(err.Error(), "security.protocol") {
		t.Errorf("unknown protocol: %v", err)
	}
	_, err = (Props{"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI"}).FranzOpts()
	if err == nil || !strings.Contains(err.Error(), "sasl.mechanism") {
		t.Errorf("GSSAPI: %v", err)
	}
}

// Every property Kafka's Java clients type PASSWORD and every property
// librdkafka marks sensitive is secret; their paths, user names and
// public settings are not.
func TestIsSecret(t *testing.T) {
	for _, k := range []string{
		// Kafka (Java clients)
		"sasl.jaas.config", "ssl.key.password", "ssl.keystore.password", "ssl.truststore.password",
		"ssl.keystore.key", "ssl.keystore.certificate.chain", "ssl.truststore.certificates",
		"sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.assertion.private.key.passphrase",
		// librdkafka
		"sasl.password", "sasl.oauthbearer.config", "sasl.oauthbearer.client.secret", "ssl.key.pem", "ssl_key",
		"sasl.oauthbearer.assertion.private.key.pem",
		// by the word rule: broker listener settings, other tools
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", "listener.name.ssl.ssl.keystore.password",
		"basic.auth.user.info", "SASL.PASSWORD", " sasl.password ", "some.future.secret", "x.private.key",
	} {
		if !IsSecret(k) {
			t.Errorf("%q: not secret", k)
		}
	}
	for _, k := range []string{
		"sasl.username", "ssl.key.location", "ssl.keystore.location", "ssl.truststore.location", "ssl.ca.location",
		"ssl.certificate.location", "ssl.certificate.pem", "ssl.ca.pem", "security.protocol", "sasl.mechanism",
		"sasl.mechanisms", "bootstrap.servers", "ssl.endpoint.identification.algorithm", "sasl.oauthbearer.method",
		"sasl.oauthbearer.client.id", "sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.scope",
		"enable.sasl.oauthbearer.unsecure.jwt", "client.id", "fetch.max.wait.ms", "ssl.keystore.type",
		"sasl.oauthbearer.assertion.private.key.file",
	} {
		if IsSecret(k) {
			t.Errorf("%q: secret", k)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	in := []string{"chaos", "run", "-X", "sasl.password=hunter2", "--X", "sasl.username=alice", "-X=ssl.key.password=k",
		"--X=sasl.jaas.config=a b", "--broker-config", "listener.name.x.ssl.keystore.password=p",
		"-F", "secrets.properties", "-X", "security.protocol=SASL_SSL", "w.yaml", "-X"}
	got := RedactArgs(in)
	want := []string{"chaos", "run", "-X", "sasl.password=***", "--X", "sasl.username=alice", "-X=ssl.key.password=***",
		"--X=sasl.jaas.config=***", "--broker-config", "listener.name.x.ssl.keystore.password=***",
		"-F", "secrets.properties", "-X", "security.protocol=SASL_SSL", "w.yaml", "-X"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("RedactArgs:\n got %q\nwant %q", got, want)
	}
	if in[3] != "sasl.password=hunter2" {
		t.Error("RedactArgs changed its input")
	}
}

func TestParseProperties(t *testing.T) {
	text := "# a comment\n! another\n\n  security.protocol = SASL_SSL\nsasl.mechanism:SCRAM-SHA-512\n" +
		"sasl.username alice\nsasl.password=a\\=b \\\n    c\\u0041\\tx\nempty=\nkey\\ with\\ blanks=v\nsasl.username=bob\r\n"
	p, err := ParseProperties(text)
	if err != nil {
		t.Fatal(err)
	}
	want := Props{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "bob",
		"sasl.password": "a=b cA\tx", "empty": "", "key with blanks": "v"}
	if len(p) != len(want) {
		t.Errorf("got %d properties %v, want %d", len(p), p, len(want))
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
	for _, bad := range []string{"=value-with-no-key\n", "k=\\u12\n"} {
		_, err := ParseProperties("ok=1\n" + bad)
		if err == nil || !strings.HasPrefix(err.Error(), "2: ") {
			t.Errorf("%q: %v, want an error at line 2", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "value-with-no-key") {
			t.Errorf("the error shows the value: %v", err)
		}
	}
}

// -F reads a file; -X wins over it whatever the order; an unreadable or
// malformed file names itself and the line.
func TestFileFlag(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(file, []byte("sasl.password=from-file\nsasl.username=alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var f Flag
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Register(fs)
	if err := fs.Parse([]string{"-X", "sasl.username=bob", "-F", file, "-X", "security.protocol=SASL_SSL"}); err != nil {
		t.Fatal(err)
	}
	want := Props{"sasl.password": "from-file", "sasl.username": "bob", "security.protocol": "SASL_SSL"}
	if f.Props.String() != want.String() || f.Props["sasl.password"] != "from-file" {
		t.Errorf("merged %v, want %v", f.Props, want)
	}
	bad := filepath.Join(dir, "bad.properties")
	os.WriteFile(bad, []byte("a=1\n=secret-value\n"), 0o600)
	err := fs.Parse([]string{"-F", bad})
	if err == nil || !strings.Contains(err.Error(), bad+":2:") || strings.Contains(err.Error(), "secret-value") {
		t.Errorf("bad file: %v", err)
	}
	if err := fs.Parse([]string{"-F", filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}

func TestSecretsAndPublic(t *testing.T) {
	p := Props{"sasl.password": "s", "sasl.username": "u", "ssl.key.pem": "k"}
	if s := p.Secrets(); len(s) != 2 || s["sasl.password"] != "s" || s["ssl.key.pem"] != "k" {
		t.Errorf("Secrets: %v", s)
	}
	if pub := p.Public(); len(pub) != 1 || pub["sasl.username"] != "u" {
		t.Errorf("Public: %v", pub)
	}
	if r := p.Redacted(); r["sasl.password"] != Mask || r["sasl.username"] != "u" {
		t.Errorf("Redacted: %v", r)
	}
}

func TestRedactJVMOptions(t *testing.T) {
	in := []string{"-Xmx256m", "-Djavax.net.ssl.keyStorePassword=hunter2", "-Djava.security.auth.login.config=/etc/jaas.conf",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-XX:TieredStopAtLevel=1"}
	got := RedactJVMOptions(in)
	// A path to a file of credentials is not secret: the file holds them.
	want := []string{"-Xmx256m", "-Djavax.net.ssl.keyStorePassword=***", "-Djava.security.auth.login.config=/etc/jaas.conf",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-XX:TieredStopAtLevel=1"}
	if !slices.Equal(got, want) {
		t.Errorf("RedactJVMOptions(%q) = %q, want %q", in, got, want)
	}
	if in[1] != "-Djavax.net.ssl.keyStorePassword=hunter2" {
		t.Error("RedactJVMOptions changed its input")
	}
}
