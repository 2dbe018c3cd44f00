package main

// The certificate flow of OpAMP (connection_settings_request.opamp.certificate_request): with -csr the
// agent makes a key and a CSR, asks the server to sign it, and on the offer that carries the signed
// certificate reconnects with it as its TLS client certificate.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"
)

type csrState struct {
	key    *ecdsa.PrivateKey
	csrPEM []byte
}

func newCSR(commonName string) (*csrState, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: commonName},
	}, key)
	if err != nil {
		return nil, err
	}
	return &csrState{key: key, csrPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})}, nil
}

func (c *csrState) request() *protobufs.ConnectionSettingsRequest {
	return &protobufs.ConnectionSettingsRequest{Opamp: &protobufs.OpAMPConnectionSettingsRequest{
		CertificateRequest: &protobufs.CertificateRequest{Csr: c.csrPEM},
	}}
}

// onOpampSettings accepts an offer with a certificate: it reconnects (after the callback returned,
// as the client must not be stopped from inside its own callback) to the offered endpoint, or the
// current one, presenting the certificate.
func (a *agent) onOpampSettings(_ context.Context, s *protobufs.OpAMPConnectionSettings) error {
	offered := s.GetCertificate()
	if offered == nil || len(offered.GetCert()) == 0 {
		return nil
	}
	keyPEM := offered.GetPrivateKey()
	if len(keyPEM) == 0 && a.csr != nil {
		der, err := x509.MarshalECPrivateKey(a.csr.key)
		if err != nil {
			return err
		}
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	}
	pair, err := tls.X509KeyPair(offered.GetCert(), keyPEM)
	if err != nil {
		return fmt.Errorf("offered certificate unusable: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return err
	}
	fmt.Printf("certificate received serial=%x uris=%v\n", leaf.SerialNumber, leaf.URIs)
	next := a.settings
	next.TLSConfig = withClientCertificate(next.TLSConfig, pair, offered.GetCaCert())
	if endpoint := s.GetDestinationEndpoint(); endpoint != "" {
		next.OpAMPServerURL = endpoint
	}
	go a.reconnect(next)
	return nil
}

func withClientCertificate(base *tls.Config, pair tls.Certificate, caPEM []byte) *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if base != nil {
		cfg = base.Clone()
	}
	if len(caPEM) > 0 {
		if cfg.RootCAs == nil {
			cfg.RootCAs = x509.NewCertPool()
		}
		cfg.RootCAs.AppendCertsFromPEM(caPEM)
	}
	cfg.Certificates = []tls.Certificate{pair}
	return cfg
}

func (a *agent) reconnect(next startSettings) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.mu.Lock()
	old := a.client
	a.mu.Unlock()
	_ = old.Stop(ctx)
	exitOn(a.start(next))
	fmt.Printf("reconnected with certificate to %s\n", next.OpAMPServerURL)
}
