package kafkaconf

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// JavaProps translates the connection-level properties given by
// librdkafka's names (as the confluent client takes them and franz.go
// translates them) into the names of Kafka's Java client, so that one
// set of -X properties reaches a cluster from every client of a run:
//
//   - TLS: ssl.ca.location (a file) becomes a PEM trust store,
//     ssl.truststore.type=PEM with ssl.truststore.location;
//     ssl.ca.pem becomes ssl.truststore.certificates. A client
//     certificate (ssl.certificate.location or .pem) and its key
//     (ssl.key.location or .pem) become a PEM key store,
//     ssl.keystore.type=PEM with ssl.keystore.certificate.chain and
//     ssl.keystore.key, both inline (the files are read here);
//     ssl.endpoint.identification.algorithm=none becomes the empty value
//     by which Java skips the host name check.
//   - The key: Java reads a PEM key only as PKCS#8, in clear or
//     encrypted (ENCRYPTED PRIVATE KEY, with ssl.key.password). A key in
//     clear in another form (RSA PRIVATE KEY, EC PRIVATE KEY), or one
//     encrypted the traditional PEM way (Proc-Type: 4,ENCRYPTED, decrypted
//     here with ssl.key.password, as franz.go does), is handed over as
//     unencrypted PKCS#8. ssl.keystore.key is a secret (IsSecret): it
//     reaches the member through its environment, never its command line,
//     like the password it replaces.
//   - SASL: sasl.mechanism (or librdkafka's sasl.mechanisms) PLAIN,
//     SCRAM-SHA-256 or SCRAM-SHA-512 with sasl.username and sasl.password
//     becomes sasl.jaas.config with PlainLoginModule or ScramLoginModule;
//     OAUTHBEARER with an unsecured token
//     (enable.sasl.oauthbearer.unsecure.jwt=true, sasl.oauthbearer.config)
//     becomes OAuthBearerLoginModule with the unsecuredLogin options, the
//     token made by Kafka's default (unsecured) login handler, which needs
//     no system property.
//
// Java's own names (ssl.truststore.*, ssl.keystore.*, sasl.jaas.config,
// sasl.mechanism, ...) and every property outside the connection set pass
// through unchanged: the Java member judges their names and values itself
// (the java cell check). A librdkafka name given together with the Java
// name it becomes is an error (which one would win is not obvious), and so
// is what Kafka's Java client cannot apply (a CA directory, turning
// certificate verification off, a token endpoint the JVM does not allow,
// Kerberos by librdkafka's keytab settings): each names the property and
// the client, never silently dropped.
func (p Props) JavaProps() (Props, error) {
	if err := p.checkJavaKeys(); err != nil {
		return nil, err
	}
	out := Props{}
	for k, v := range p {
		if !javaTranslated[k] {
			out[k] = v
		}
	}
	for _, step := range []func(Props) error{p.javaTrust, p.javaKeystore, p.javaVerification, p.javaSASL} {
		if err := step(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// javaTranslated are the librdkafka names JavaProps replaces by Java's.
var javaTranslated = map[string]bool{
	"ssl.ca.location": true, "ssl.ca.pem": true,
	"ssl.certificate.location": true, "ssl.certificate.pem": true,
	"ssl.key.location": true, "ssl.key.pem": true,
	"enable.ssl.certificate.verification": true,
	"sasl.mechanisms":                     true, "sasl.username": true, "sasl.password": true,
	"enable.sasl.oauthbearer.unsecure.jwt": true, "sasl.oauthbearer.config": true,
	"sasl.oauthbearer.method": true,
}

// javaRefused says, for the librdkafka properties Kafka's Java client has
// no counterpart of, what to use instead.
var javaRefused = []struct{ key, instead string }{
	{"ssl.crl.location", "Kafka's Java client takes no revocation list property: leave it out, or use the confluent client"},
	{"ssl.ca.certificate.stores", "a Windows certificate store is librdkafka's: give the CA certificates as PEM, ssl.ca.location"},
	{"ssl.engine.location", "an OpenSSL engine is librdkafka's: use the confluent client"},
	{"ssl.engine.id", "an OpenSSL engine is librdkafka's: use the confluent client"},
	{"ssl.providers", "OpenSSL providers are librdkafka's: use the confluent client"},
	{"ssl.sigalgs.list", "OpenSSL's signature algorithms are librdkafka's: use the confluent client"},
	{"ssl.curves.list", "OpenSSL's curves are librdkafka's: use the confluent client"},
	{"sasl.kerberos.keytab", "Kafka's Java client takes Kerberos from sasl.jaas.config (Krb5LoginModule with keyTab and principal)"},
	{"sasl.kerberos.principal", "Kafka's Java client takes Kerberos from sasl.jaas.config (Krb5LoginModule with keyTab and principal)"},
	{"sasl.oauthbearer.client.id", "librdkafka's OIDC settings: Kafka's Java client fetches tokens from an endpoint only when the JVM allows its URL (the system property org.apache.kafka.sasl.oauthbearer.allowed.urls), which the java member does not set: use the confluent client, or an unsecured token (enable.sasl.oauthbearer.unsecure.jwt=true)"},
	{"sasl.oauthbearer.client.secret", "librdkafka's OIDC settings: use the confluent client, or an unsecured token (enable.sasl.oauthbearer.unsecure.jwt=true)"},
	{"sasl.oauthbearer.extensions", "librdkafka's OIDC settings: use the confluent client, or an unsecured token with extension_NAME=VALUE in sasl.oauthbearer.config"},
	{"sasl.oauthbearer.token.endpoint.url", "Kafka's Java client fetches tokens from an endpoint only when the JVM allows its URL (the system property org.apache.kafka.sasl.oauthbearer.allowed.urls), which the java member does not set: use the confluent client, or an unsecured token (enable.sasl.oauthbearer.unsecure.jwt=true)"},
	{"sasl.oauthbearer.jwks.endpoint.url", "a broker's setting: Kafka's Java client validates no token"},
}

// checkJavaKeys refuses what Kafka's Java client has no counterpart of,
// and a librdkafka name given with the Java name it becomes.
func (p Props) checkJavaKeys() error {
	keys := slices.Sorted(maps.Keys(p))
	for _, k := range keys {
		for _, r := range javaRefused {
			if k == r.key {
				return fmt.Errorf("-X %s: client java: %s", k, r.instead)
			}
		}
	}
	both := func(ours, javas string) error {
		if p[ours] == "" {
			return nil
		}
		for _, k := range keys {
			if strings.HasPrefix(k, javas) {
				return fmt.Errorf("-X %s and %s: client java: give one of the two (%s is librdkafka's name, %s Java's)", ours, k, ours, k)
			}
		}
		return nil
	}
	if p["sasl.mechanisms"] != "" && p["sasl.mechanism"] != "" {
		return errors.New("-X sasl.mechanisms and sasl.mechanism: client java: give one of the two")
	}
	for _, pair := range [][2]string{
		{"ssl.ca.location", "ssl.truststore."}, {"ssl.ca.pem", "ssl.truststore."},
		{"ssl.certificate.location", "ssl.keystore."}, {"ssl.certificate.pem", "ssl.keystore."},
		{"ssl.key.location", "ssl.keystore."}, {"ssl.key.pem", "ssl.keystore."},
		{"sasl.username", "sasl.jaas.config"}, {"sasl.password", "sasl.jaas.config"},
		{"sasl.oauthbearer.config", "sasl.jaas.config"},
	} {
		if err := both(pair[0], pair[1]); err != nil {
			return err
		}
	}
	if m := p["sasl.oauthbearer.method"]; m != "" && !strings.EqualFold(m, "default") {
		return fmt.Errorf("-X sasl.oauthbearer.method=%s: client java: Kafka's Java client fetches tokens from an endpoint only when the JVM allows its URL (the system property org.apache.kafka.sasl.oauthbearer.allowed.urls), which the java member does not set: use the confluent client, or an unsecured token (enable.sasl.oauthbearer.unsecure.jwt=true)", m)
	}
	return nil
}

// javaTrust makes the PEM trust store of ssl.ca.location or ssl.ca.pem.
func (p Props) javaTrust(out Props) error {
	if loc := p["ssl.ca.location"]; loc != "" {
		if loc == "probe" {
			return errors.New("-X ssl.ca.location=probe: client java: probing for the system's CA certificates is librdkafka's: leave it out (Java then trusts its own CA certificates) or give a PEM file")
		}
		fi, err := os.Stat(loc)
		if err != nil {
			return fmt.Errorf("-X ssl.ca.location: %w", err)
		}
		if fi.IsDir() {
			return fmt.Errorf("-X ssl.ca.location=%s: client java: a folder of CA certificates is librdkafka's: give one PEM file holding them", loc)
		}
		if _, _, err := p.pemProp("ssl.ca"); err != nil {
			return err
		}
		out["ssl.truststore.type"] = "PEM"
		out["ssl.truststore.location"] = loc
		return nil
	}
	if ca := p["ssl.ca.pem"]; ca != "" {
		out["ssl.truststore.type"] = "PEM"
		out["ssl.truststore.certificates"] = ca
	}
	return nil
}

// javaKeystore makes the PEM key store of a client certificate and key.
func (p Props) javaKeystore(out Props) error {
	cert, certFrom, err := p.pemProp("ssl.certificate")
	if err != nil {
		return err
	}
	key, keyFrom, err := p.pemProp("ssl.key")
	if err != nil {
		return err
	}
	switch {
	case cert == nil && key == nil:
		return nil // ssl.key.password, if any, is Java's own: a key store's key
	case cert == nil:
		return fmt.Errorf("-X %s: a client key needs its certificate, ssl.certificate.location or ssl.certificate.pem", keyFrom)
	case key == nil:
		return fmt.Errorf("-X %s: a client certificate needs its key, ssl.key.location or ssl.key.pem", certFrom)
	}
	if b, _ := pem.Decode(cert); b == nil || b.Type != "CERTIFICATE" {
		return fmt.Errorf("-X %s: no PEM certificate found", certFrom)
	}
	pkcs8, encrypted, err := javaKey(key, keyFrom, p["ssl.key.password"])
	if err != nil {
		return err
	}
	if !encrypted {
		delete(out, "ssl.key.password") // the key is handed over in clear
	}
	out["ssl.keystore.type"] = "PEM"
	out["ssl.keystore.certificate.chain"] = string(cert)
	out["ssl.keystore.key"] = string(pkcs8)
	return nil
}

// javaKey returns a PEM private key in a form Kafka's Java client reads:
// an encrypted PKCS#8 key as it is (encrypted: Java decrypts it with
// ssl.key.password), any other as unencrypted PKCS#8, decrypted first if
// it is encrypted the traditional way.
func javaKey(key []byte, from, password string) (out []byte, encrypted bool, err error) {
	var block *pem.Block
	for rest := key; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if strings.Contains(b.Type, "PRIVATE KEY") {
			if block != nil {
				return nil, false, fmt.Errorf("-X %s: more than one private key", from)
			}
			block = b
		}
	}
	if block == nil {
		return nil, false, fmt.Errorf("-X %s: no PEM private key found", from)
	}
	if block.Type == "ENCRYPTED PRIVATE KEY" {
		if password == "" {
			return nil, false, fmt.Errorf("-X %s: the key is encrypted: give its password, ssl.key.password", from)
		}
		return pem.EncodeToMemory(block), true, nil
	}
	clear, err := decryptKey(pem.EncodeToMemory(block), from, password)
	if err != nil {
		return nil, false, err
	}
	b, _ := pem.Decode(clear)
	var k any
	switch b.Type {
	case "PRIVATE KEY":
		return clear, false, nil
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(b.Bytes)
	default:
		return nil, false, fmt.Errorf("-X %s: a %s, which Kafka's Java client cannot read: give a PKCS#8 key (openssl pkcs8 -topk8)", from, b.Type)
	}
	if err != nil {
		return nil, false, fmt.Errorf("-X %s: %w", from, err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, false, fmt.Errorf("-X %s: %w", from, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), false, nil
}

// javaVerification maps librdkafka's verification switches.
func (p Props) javaVerification(out Props) error {
	switch v := p["enable.ssl.certificate.verification"]; strings.ToLower(v) {
	case "", "true":
	case "false":
		return errors.New("-X enable.ssl.certificate.verification=false: client java: Kafka's Java client always verifies the broker's certificate chain: give its CA (ssl.ca.location), with ssl.endpoint.identification.algorithm=none if the certificate does not name the host")
	default:
		return fmt.Errorf("-X enable.ssl.certificate.verification=%s: expected true or false", v)
	}
	switch alg := p["ssl.endpoint.identification.algorithm"]; strings.ToLower(alg) {
	case "none":
		out["ssl.endpoint.identification.algorithm"] = "" // Java's "no host name check"
	case "", "https":
	default:
		return fmt.Errorf("-X ssl.endpoint.identification.algorithm=%s: expected https or none", alg)
	}
	return nil
}

// javaSASL makes sasl.jaas.config of a user and password, or of an
// unsecured token.
func (p Props) javaSASL(out Props) error {
	mech := p["sasl.mechanism"]
	if mech == "" {
		mech = p["sasl.mechanisms"] // librdkafka's name
	}
	user, pass := p["sasl.username"], p["sasl.password"]
	unsecured := strings.EqualFold(p["enable.sasl.oauthbearer.unsecure.jwt"], "true")
	if mech != "" {
		out["sasl.mechanism"] = mech // librdkafka's sasl.mechanisms, under Java's name
	}
	if p["sasl.jaas.config"] != "" {
		if unsecured {
			return errors.New("-X enable.sasl.oauthbearer.unsecure.jwt and sasl.jaas.config: client java: give one of the two")
		}
		return nil // Java's own, as given
	}
	if mech == "" && user == "" && pass == "" && !unsecured {
		return nil
	}
	var module string
	var options [][2]string
	switch strings.ToUpper(mech) {
	case "PLAIN", "":
		mech, module = "PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule"
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		module = "org.apache.kafka.common.security.scram.ScramLoginModule"
	case "OAUTHBEARER":
		if !unsecured {
			return errors.New("-X sasl.mechanism=OAUTHBEARER: client java: the java member presents an unsecured token only: set enable.sasl.oauthbearer.unsecure.jwt=true and sasl.oauthbearer.config=principal=NAME, or give Java's own sasl.jaas.config")
		}
		if user != "" || pass != "" {
			return errors.New("-X sasl.username and sasl.password: client java: not used by OAUTHBEARER: leave them out")
		}
		opts, err := p.unsecuredJaasOptions()
		if err != nil {
			return err
		}
		out["sasl.mechanism"] = "OAUTHBEARER"
		out["sasl.jaas.config"] = jaasConfig("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule", opts)
		return nil
	default:
		if user != "" || pass != "" {
			return fmt.Errorf("-X sasl.mechanism=%s: client java: sasl.username and sasl.password serve PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512: for another mechanism give Java's own sasl.jaas.config", mech)
		}
		return nil
	}
	if unsecured {
		return fmt.Errorf("-X enable.sasl.oauthbearer.unsecure.jwt: client java: serves sasl.mechanism=OAUTHBEARER, not %s", mech)
	}
	if user == "" {
		return fmt.Errorf("-X sasl.mechanism=%s: client java: give sasl.username and sasl.password, or Java's own sasl.jaas.config", mech)
	}
	options = append(options, [2]string{"username", user}, [2]string{"password", pass})
	out["sasl.mechanism"] = strings.ToUpper(mech)
	out["sasl.jaas.config"] = jaasConfig(module, options)
	return nil
}

// unsecuredJaasOptions turns sasl.oauthbearer.config, read as librdkafka
// reads it (unsecuredToken), into the options of Kafka's unsecured login
// handler: the principal as a string claim, the scope as a list claim,
// the lifetime, the claim names, and extension_NAME as extensions.
func (p Props) unsecuredJaasOptions() ([][2]string, error) {
	t, err := parseUnsecuredToken(p["sasl.oauthbearer.config"])
	if err != nil {
		return nil, err
	}
	opts := [][2]string{{"unsecuredLoginStringClaim_" + t.principalClaim, t.principal}}
	if t.principalClaim != "sub" {
		opts = append(opts, [2]string{"unsecuredLoginPrincipalClaimName", t.principalClaim})
	}
	if t.scope != "" {
		// A list claim's value starts with its separator.
		opts = append(opts, [2]string{"unsecuredLoginListClaim_" + t.scopeClaim, "," + t.scope})
	}
	if t.scopeClaim != "scope" {
		opts = append(opts, [2]string{"unsecuredLoginScopeClaimName", t.scopeClaim})
	}
	if t.lifeGiven {
		opts = append(opts, [2]string{"unsecuredLoginLifetimeSeconds", strconv.Itoa(t.life)})
	}
	for _, k := range slices.Sorted(maps.Keys(t.ext)) {
		opts = append(opts, [2]string{"unsecuredLoginExtension_" + k, t.ext[k]})
	}
	return opts, nil
}

// jaasConfig renders a JAAS configuration of one required login module.
// Values are quoted, with backslash, quote and line breaks escaped, as
// Kafka's JAAS parser (a java.io.StreamTokenizer) reads them back.
func jaasConfig(module string, options [][2]string) string {
	var b strings.Builder
	b.WriteString(module)
	b.WriteString(" required")
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	for _, o := range options {
		fmt.Fprintf(&b, " %s=\"%s\"", o[0], esc.Replace(o[1]))
	}
	b.WriteString(";")
	return b.String()
}
