// Package testcert makes the TLS material tests need, in Go, in a folder
// of their own: a certificate authority, a server certificate for the
// loopback address (127.0.0.1 and localhost) and a client certificate, as
// PEM files in the forms Kafka's broker and both clients read. Nothing is
// fetched or shared: every call makes new keys, valid for a day.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Set is the files Make writes.
type Set struct {
	Dir string
	// CA is the authority's certificate (PEM): a client's ssl.ca.location,
	// the broker's trust store (ssl.truststore.type=PEM).
	CA string
	// ServerKeystore holds the server's private key (unencrypted PKCS#8,
	// as Kafka's PEM key store requires) followed by its certificate: the
	// broker's ssl.keystore.location with ssl.keystore.type=PEM.
	ServerKeystore string
	// ClientCert is the client's certificate (ssl.certificate.location).
	ClientCert string
	// ClientKey is the client's private key, encrypted the traditional
	// PEM way (Proc-Type: 4,ENCRYPTED) with KeyPassword
	// (ssl.key.location, ssl.key.password).
	ClientKey   string
	KeyPassword string
}

// Make writes a new Set into dir. keyPassword encrypts the client's key.
func Make(dir, keyPassword string) (Set, error) {
	s := Set{Dir: dir, KeyPassword: keyPassword,
		CA: filepath.Join(dir, "ca.pem"), ServerKeystore: filepath.Join(dir, "server-keystore.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	now := time.Now()
	caKey, err := newKey()
	if err != nil {
		return s, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "chaosbench test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return s, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return s, err
	}
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, server bool) (*ecdsa.PrivateKey, []byte, error) {
		key, err := newKey()
		if err != nil {
			return nil, nil, err
		}
		t := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		}
		if server {
			t.DNSNames = []string{"localhost"}
			t.IPAddresses = []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}
		}
		der, err := x509.CreateCertificate(rand.Reader, t, ca, &key.PublicKey, caKey)
		return key, der, err
	}
	serverKey, serverDER, err := leaf(2, "localhost", x509.ExtKeyUsageServerAuth, true)
	if err != nil {
		return s, err
	}
	clientKey, clientDER, err := leaf(3, "chaosbench-client", x509.ExtKeyUsageClientAuth, false)
	if err != nil {
		return s, err
	}
	serverPKCS8, err := x509.MarshalPKCS8PrivateKey(serverKey)
	if err != nil {
		return s, err
	}
	clientEC, err := x509.MarshalECPrivateKey(clientKey)
	if err != nil {
		return s, err
	}
	// The traditional encryption is deprecated in Go for its weak design;
	// it is the form librdkafka and Go can both read with a password.
	encrypted, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", clientEC, []byte(keyPassword), x509.PEMCipherAES256)
	if err != nil {
		return s, err
	}
	files := map[string][]byte{
		s.CA:             pemOf("CERTIFICATE", caDER),
		s.ServerKeystore: append(pemOf("PRIVATE KEY", serverPKCS8), pemOf("CERTIFICATE", serverDER)...),
		s.ClientCert:     pemOf("CERTIFICATE", clientDER),
		s.ClientKey:      pem.EncodeToMemory(encrypted),
	}
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return s, fmt.Errorf("testcert: %w", err)
		}
	}
	return s, nil
}

func newKey() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
