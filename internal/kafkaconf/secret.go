package kafkaconf

import "strings"

// Mask is what a secret's value becomes wherever it is shown or recorded.
const Mask = "***"

// IsSecret reports whether a property's value is a secret: a password, a
// private key, a client secret, a JAAS configuration (which holds
// credentials), or anything named like one. It is the one rule of
// chaosbench: whatever records or prints a property (run.json's command
// line, cell.json, a member's command line, logs and error messages) asks
// it, and a secret's value is masked or kept out.
//
// The names come from Kafka's Java clients (every setting of type
// PASSWORD) and from librdkafka (every property it marks sensitive). A
// name outside both lists that contains a telling word (password, secret,
// passphrase, jaas) or names a private key (ends in .key, _key or
// .key.pem) is secret too, so a broker's listener-prefixed settings
// (listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config) and properties
// of future versions are covered. It errs on the side of masking: a
// masked value that was not secret costs a little reading; the opposite
// costs a credential.
//
// Paths to key material (ssl.key.location, ssl.keystore.location) are not
// secret: the file holds the secret and stays where it is. Neither is
// sasl.username.
func IsSecret(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	if secretKeys[k] {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return strings.HasSuffix(k, ".key") || strings.HasSuffix(k, ".key.pem") || strings.HasSuffix(k, "_key")
}

// secretKeys are the secret properties by name.
var secretKeys = map[string]bool{
	// Kafka's Java clients: the settings of type PASSWORD.
	"sasl.jaas.config":                                  true,
	"ssl.key.password":                                  true,
	"ssl.keystore.password":                             true,
	"ssl.keystore.key":                                  true,
	"ssl.keystore.certificate.chain":                    true, // PASSWORD-typed: it may be given together with its key
	"ssl.truststore.password":                           true,
	"ssl.truststore.certificates":                       true, // PASSWORD-typed in Kafka, though certificates are public
	"sasl.oauthbearer.client.credentials.client.secret": true,
	"sasl.oauthbearer.assertion.private.key.passphrase": true,
	// librdkafka's sensitive properties.
	"sasl.password":                              true,
	"sasl.oauthbearer.config":                    true, // may carry a token's claims and extensions
	"sasl.oauthbearer.client.secret":             true,
	"sasl.oauthbearer.assertion.private.key.pem": true,
	"ssl.key.pem":                                true,
	"ssl_key":                                    true,
	// Schema Registry clients: user:password.
	"basic.auth.user.info": true,
}

// secretWords make any property that contains one secret.
var secretWords = []string{"password", "secret", "passphrase", "jaas"}

// RedactArgs returns a copy of a command line with the value of every
// secret property masked: -X key=value (also --X, -X=key=value) and
// --broker-config key=value, the forms chaosbench's commands take. Paths
// given to -F are left as they are: the file holds the secrets.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	takesProp := func(flag string) bool {
		name := strings.TrimLeft(flag, "-")
		return strings.HasPrefix(flag, "-") && (name == "X" || name == "broker-config")
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		if name, val, inline := strings.Cut(a, "="); inline && takesProp(name) {
			out[i] = name + "=" + redactProp(val)
			continue
		}
		if takesProp(a) && i+1 < len(out) {
			out[i+1] = redactProp(out[i+1])
			i++
		}
	}
	return out
}

// redactProp masks the value of one key=value if the key is secret.
func redactProp(kv string) string {
	k, _, ok := strings.Cut(kv, "=")
	if ok && IsSecret(k) {
		return k + "=" + Mask
	}
	return kv
}

// RedactJVMOptions returns a copy of JVM options with the value of every
// system property named like a secret masked (-Dkey=value, as
// -Djavax.net.ssl.keyStorePassword=... would be given): what a cell's
// record keeps of CHAOSBENCH_JAVA_OPTIONS.
func RedactJVMOptions(opts []string) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o
		if kv, ok := strings.CutPrefix(o, "-D"); ok {
			out[i] = "-D" + redactProp(kv)
		}
	}
	return out
}
