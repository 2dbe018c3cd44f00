package main

// What the agent says about itself and how it reaches the server: description, local config,
// instance uid, headers, TLS, and the logger handed to opamp-go.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/google/uuid"
	"github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"
)

func localConfig() *protobufs.AgentConfigMap {
	return &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
		"": {Body: []byte("local: true\n"), ContentType: "text/yaml"},
	}}
}

func description(name string, uid types.InstanceUid) *protobufs.AgentDescription {
	host, _ := os.Hostname()
	text := func(k, v string) *protobufs.KeyValue {
		return &protobufs.KeyValue{Key: k, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_StringValue{StringValue: v}}}
	}
	return &protobufs.AgentDescription{
		IdentifyingAttributes: []*protobufs.KeyValue{
			text("service.name", name),
			text("service.instance.id", uuid.UUID(uid).String()),
		},
		NonIdentifyingAttributes: []*protobufs.KeyValue{text("host.name", host), text("os.type", "linux")},
	}
}

func instanceUid(text string) (types.InstanceUid, error) {
	if text == "" {
		id, err := uuid.NewV7()
		return types.InstanceUid(id), err
	}
	id, err := uuid.Parse(text)
	return types.InstanceUid(id), err
}

func parseHeaders(lines []string) http.Header {
	h := http.Header{}
	for _, line := range lines {
		if k, v, ok := strings.Cut(line, ":"); ok {
			h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return h
}

func tlsConfig(caFile string) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no certificate in %s", caFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

type stdoutLogger struct{ debug bool }

func (l stdoutLogger) Debugf(_ context.Context, format string, v ...interface{}) {
	if l.debug {
		fmt.Printf("debug "+format+"\n", v...)
	}
}
func (l stdoutLogger) Errorf(_ context.Context, format string, v ...interface{}) {
	fmt.Printf("error "+format+"\n", v...)
}
