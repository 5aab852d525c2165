package kafkaconf

import (
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
