package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/testcert"
)

// Listeners of a Secured cluster.
const (
	// ListenerSSL is TLS with client certificates required (mutual TLS).
	ListenerSSL = "SSL"
	// ListenerSASLSSL is SCRAM-SHA-512 over TLS.
	ListenerSASLSSL = "SASL_SSL"
	// ListenerSASL is SASL without TLS: PLAIN, SCRAM-SHA-256,
	// SCRAM-SHA-512 and OAUTHBEARER with Kafka's unsecured tokens.
	ListenerSASL = "SASL"
)

// SecuredCluster is a one-node local cluster whose clients can reach it
// over TLS and SASL besides PLAINTEXT: what the clients' security
// settings are tried against.
type SecuredCluster struct {
	*cluster.Local
	Certs    testcert.Set
	User     string // a SCRAM and PLAIN user
	Password string // its password on every mechanism; also the client key's
}

// Secured starts a SecuredCluster for the test, stopped at cleanup. The
// certificates are made for it (package testcert); user's password is
// password, created with the admin API for both SCRAM mechanisms and
// written in the broker's PLAIN configuration; the client key is
// encrypted with it too, so that one marker finds every secret.
func Secured(t testing.TB, user, password string) *SecuredCluster {
	t.Helper()
	certs, err := testcert.Make(t.TempDir(), password)
	if err != nil {
		t.Fatal(err)
	}
	tls := cluster.Settings{
		"ssl.keystore.type": "PEM", "ssl.keystore.location": certs.ServerKeystore,
		"ssl.truststore.type": "PEM", "ssl.truststore.location": certs.CA,
	}
	scram := "org.apache.kafka.common.security.scram.ScramLoginModule required;"
	sslOnly := tls.Merge(cluster.Settings{"ssl.client.auth": "required"})
	saslSSL := tls.Merge(cluster.Settings{"sasl.enabled.mechanisms": "SCRAM-SHA-512", "scram-sha-512.sasl.jaas.config": scram})
	sasl := cluster.Settings{
		"sasl.enabled.mechanisms":        "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
		"plain.sasl.jaas.config":         `org.apache.kafka.common.security.plain.PlainLoginModule required user_` + user + `="` + password + `";`,
		"scram-sha-256.sasl.jaas.config": scram,
		"scram-sha-512.sasl.jaas.config": scram,
		// Kafka's unsecured tokens (alg none), for development clusters.
		"oauthbearer.sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
	}
	c := Start(t, cluster.LocalConfig{Listeners: []cluster.Listener{
		{Name: ListenerSSL, Protocol: "SSL", Settings: sslOnly},
		{Name: ListenerSASLSSL, Protocol: "SASL_SSL", Settings: saslSSL},
		{Name: ListenerSASL, Protocol: "SASL_PLAINTEXT", Settings: sasl},
	}})
	adm, err := cluster.NewAdmin(c.Bootstrap(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// One request per mechanism: the broker refuses a user named twice in
	// one request.
	for _, mech := range []kadm.ScramMechanism{kadm.ScramSha256, kadm.ScramSha512} {
		res, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: user, Mechanism: mech, Iterations: 4096, Password: password}})
		if err == nil {
			err = res.Error()
		}
		if err != nil {
			t.Fatalf("create SCRAM user %s (%s): %v", user, mech, err)
		}
	}
	// The broker authenticates against its metadata, which the controller
	// updates a moment later: wait until it describes both credentials.
	for {
		d, err := adm.DescribeUserSCRAMs(ctx, user)
		if err == nil && d.Error() == nil && len(d[user].CredInfos) == 2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("SCRAM user %s not described after its creation: %v", user, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return &SecuredCluster{Local: c, Certs: certs, User: user, Password: password}
}

// Bootstrap returns the bootstrap.servers of a listener.
func (s *SecuredCluster) ListenerBootstrap(t testing.TB, listener string) string {
	t.Helper()
	b, err := s.Local.ListenerBootstrap(listener)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Props returns the client properties that reach a listener: for
// ListenerSSL a client certificate and its encrypted key, for the SASL
// listeners the user and password under mechanism (OAUTHBEARER: an
// unsecured token for the user).
func (s *SecuredCluster) Props(listener, mechanism string) kafkaconf.Props {
	p := kafkaconf.Props{}
	switch listener {
	case ListenerSSL:
		p["security.protocol"] = "SSL"
		p["ssl.ca.location"] = s.Certs.CA
		p["ssl.certificate.location"] = s.Certs.ClientCert
		p["ssl.key.location"] = s.Certs.ClientKey
		p["ssl.key.password"] = s.Certs.KeyPassword
		return p
	case ListenerSASLSSL:
		p["security.protocol"] = "SASL_SSL"
		p["ssl.ca.location"] = s.Certs.CA
	default:
		p["security.protocol"] = "SASL_PLAINTEXT"
	}
	p["sasl.mechanism"] = mechanism
	if mechanism == "OAUTHBEARER" {
		p["enable.sasl.oauthbearer.unsecure.jwt"] = "true"
		p["sasl.oauthbearer.config"] = "principal=" + s.User
		return p
	}
	p["sasl.username"] = s.User
	p["sasl.password"] = s.Password
	return p
}
