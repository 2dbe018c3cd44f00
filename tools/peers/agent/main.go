// A small OpAMP agent on opamp-go's client library, for the interop specs. opamp-go's own example
// agent lives in a nested module (internal/examples) that the Go module proxy does not serve, so
// this agent stands in for it: the same client library, the behaviour a spec needs and nothing more.
//
// It reports a description, health and effective config, applies any remote config it is offered
// (its effective config becomes the offered map; a file whose body contains "reject-me" makes it
// report FAILED instead) and restarts on a restart command (a new health start time). It prints one
// line per event on stdout ("connected", "config applied HASH", "restarted") for specs to wait on.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/open-telemetry/opamp-go/client"
	"github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"
)

type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

type agent struct {
	mu        sync.Mutex
	client    client.OpAMPClient
	effective *protobufs.AgentConfigMap
	started   time.Time
}

type stdoutLogger struct{ debug bool }

func (l stdoutLogger) Debugf(_ context.Context, format string, v ...interface{}) {
	if l.debug {
		fmt.Printf("debug "+format+"\n", v...)
	}
}
func (l stdoutLogger) Errorf(_ context.Context, format string, v ...interface{}) {
	fmt.Printf("error "+format+"\n", v...)
}

func main() {
	endpoint := flag.String("endpoint", "ws://127.0.0.1:4320/v1/opamp", "ws://, wss://, http:// or https:// OpAMP URL")
	name := flag.String("service-name", "opamp-go-agent", "service.name to report")
	uidText := flag.String("instance-uid", "", "instance uid (UUID); a new UUIDv7 when empty")
	caFile := flag.String("ca-file", "", "PEM CA to verify the server with (wss:// and https://)")
	heartbeat := flag.Duration("heartbeat", 30*time.Second, "heartbeat / poll interval")
	debug := flag.Bool("debug", false, "print the client library's debug lines")
	var headers headerFlags
	flag.Var(&headers, "header", "extra request header 'Name: value' (repeatable)")
	flag.Parse()

	uid, err := instanceUid(*uidText)
	exitOn(err)
	settings := types.StartSettings{
		OpAMPServerURL:    *endpoint,
		Header:            parseHeaders(headers),
		InstanceUid:       uid,
		HeartbeatInterval: heartbeat,
		Capabilities: protobufs.AgentCapabilities_AgentCapabilities_ReportsStatus |
			protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig |
			protobufs.AgentCapabilities_AgentCapabilities_ReportsRemoteConfig |
			protobufs.AgentCapabilities_AgentCapabilities_ReportsEffectiveConfig |
			protobufs.AgentCapabilities_AgentCapabilities_ReportsHealth |
			protobufs.AgentCapabilities_AgentCapabilities_ReportsHeartbeat |
			protobufs.AgentCapabilities_AgentCapabilities_AcceptsRestartCommand,
	}
	if *caFile != "" {
		settings.TLSConfig, err = tlsConfig(*caFile)
		exitOn(err)
	}
	a := &agent{effective: localConfig(), started: time.Now()}
	a.client = newClient(*endpoint, stdoutLogger{debug: *debug})
	settings.Callbacks = a.callbacks()
	exitOn(a.client.SetAgentDescription(description(*name, uid)))
	exitOn(a.client.SetHealth(a.health()))
	exitOn(a.client.Start(context.Background(), settings))
	fmt.Printf("started %s\n", hex.EncodeToString(uid[:]))

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.client.Stop(ctx)
	fmt.Println("stopped")
}

func newClient(endpoint string, logger types.Logger) client.OpAMPClient {
	if strings.HasPrefix(endpoint, "http") {
		return client.NewHTTP(logger)
	}
	return client.NewWebSocket(logger)
}

func (a *agent) callbacks() types.Callbacks {
	return types.Callbacks{
		OnConnect:       func(context.Context) { fmt.Println("connected") },
		OnConnectFailed: func(_ context.Context, err error) { fmt.Printf("connect failed %v\n", err) },
		OnError: func(_ context.Context, e *protobufs.ServerErrorResponse) {
			fmt.Printf("server error %v %s\n", e.GetType(), e.GetErrorMessage())
		},
		OnMessage: a.onMessage,
		GetEffectiveConfig: func(context.Context) (*protobufs.EffectiveConfig, error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			return &protobufs.EffectiveConfig{ConfigMap: a.effective}, nil
		},
		OnCommand: func(_ context.Context, cmd *protobufs.ServerToAgentCommand) error {
			if cmd.GetType() != protobufs.CommandType_CommandType_Restart {
				return fmt.Errorf("unknown command %v", cmd.GetType())
			}
			a.mu.Lock()
			a.started = time.Now()
			a.mu.Unlock()
			fmt.Println("restarted")
			return a.client.SetHealth(a.health())
		},
	}
}

func (a *agent) onMessage(ctx context.Context, msg *types.MessageData) {
	if msg.RemoteConfig == nil {
		return
	}
	hash := msg.RemoteConfig.GetConfigHash()
	status := &protobufs.RemoteConfigStatus{LastRemoteConfigHash: hash}
	if reason := refusal(msg.RemoteConfig.GetConfig()); reason != "" {
		status.Status = protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED
		status.ErrorMessage = reason
		fmt.Printf("config failed %x\n", hash)
	} else {
		a.mu.Lock()
		a.effective = msg.RemoteConfig.GetConfig()
		a.mu.Unlock()
		status.Status = protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED
		fmt.Printf("config applied %x\n", hash)
	}
	_ = a.client.SetRemoteConfigStatus(status)
	_ = a.client.UpdateEffectiveConfig(ctx)
}

func refusal(config *protobufs.AgentConfigMap) string {
	for name, file := range config.GetConfigMap() {
		if strings.Contains(string(file.GetBody()), "reject-me") {
			return fmt.Sprintf("config %q refused: it asks to be rejected", name)
		}
	}
	return ""
}

func (a *agent) health() *protobufs.ComponentHealth {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &protobufs.ComponentHealth{
		Healthy:           true,
		StartTimeUnixNano: uint64(a.started.UnixNano()),
		Status:            "running",
	}
}

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

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
