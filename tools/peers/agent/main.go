// A small OpAMP agent on opamp-go's client library, for the interop specs. opamp-go's own example
// agent lives in a nested module (internal/examples) that the Go module proxy does not serve, so
// this agent stands in for it: the same client library, the behaviour a spec needs and nothing more.
//
// It reports a description, health and effective config, applies any remote config it is offered
// (its effective config becomes the offered map; a file whose body contains "reject-me" makes it
// report FAILED instead; with -rollback-on MARKER a file holding MARKER fails at start and the agent
// rolls back to its previous config, as the supervisor does: rollback.go) and restarts on a restart
// command (a new health start time). With -csr it asks the server to sign a certificate and
// reconnects with it (csr.go). It prints one line per event on stdout ("connected", "config received
// HASH", "config applied HASH", "restarted", "certificate received ...") for specs to wait on and
// count; docs/interop.md lists them.
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
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

type startSettings = types.StartSettings

type agent struct {
	mu          sync.Mutex
	client      client.OpAMPClient
	settings    startSettings
	logger      types.Logger
	description *protobufs.AgentDescription
	csr         *csrState // set with -csr until the certificate has been asked for
	effective   *protobufs.AgentConfigMap
	lastRemote  *remoteConfig // the last remote config applied, what a rollback goes back to
	rollbackOn  string        // -rollback-on: the marker of a config that fails at start
	replies     chan struct{} // a signal per message from the server (rollback.go)
	failure     string        // health's last_error while a config fails at start
	received    int           // remote configs received so far: a newer one ends a rollback
	started     time.Time
}

func main() {
	endpoint := flag.String("endpoint", "ws://127.0.0.1:4320/v1/opamp", "ws://, wss://, http:// or https:// OpAMP URL")
	name := flag.String("service-name", "opamp-go-agent", "service.name to report")
	uidText := flag.String("instance-uid", "", "instance uid (UUID); a new UUIDv7 when empty")
	caFile := flag.String("ca-file", "", "PEM CA to verify the server with (wss:// and https://)")
	heartbeat := flag.Duration("heartbeat", 30*time.Second, "heartbeat / poll interval")
	debug := flag.Bool("debug", false, "print the client library's debug lines")
	csr := flag.Bool("csr", false, "ask the server to sign a CSR, then reconnect with the certificate")
	rollbackOn := flag.String("rollback-on", "", "a config whose body holds this fails at start and is rolled back")
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
	a := &agent{
		effective:   localConfig(),
		started:     time.Now(),
		logger:      stdoutLogger{debug: *debug},
		description: description(*name, uid),
		rollbackOn:  *rollbackOn,
		replies:     make(chan struct{}, 1),
	}
	if *csr {
		a.csr, err = newCSR(uuid.UUID(uid).String())
		exitOn(err)
		settings.Capabilities |= protobufs.AgentCapabilities_AgentCapabilities_AcceptsOpAMPConnectionSettings
	}
	settings.Callbacks = a.callbacks()
	exitOn(a.start(settings))
	fmt.Printf("started %s\n", hex.EncodeToString(uid[:]))

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.mu.Lock()
	current := a.client
	a.mu.Unlock()
	_ = current.Stop(ctx)
	fmt.Println("stopped")
}

// start runs a new client with these settings; with a CSR not yet sent, it asks for a certificate.
func (a *agent) start(settings startSettings) error {
	c := newClient(settings.OpAMPServerURL, a.logger)
	if err := c.SetAgentDescription(a.description); err != nil {
		return err
	}
	if err := c.SetHealth(a.health()); err != nil {
		return err
	}
	// Capabilities go through SetCapabilities (StartSettings.Capabilities is deprecated in opamp-go).
	capabilities := settings.Capabilities
	if err := c.SetCapabilities(&capabilities); err != nil {
		return err
	}
	a.mu.Lock()
	a.client = c
	a.settings = settings
	pending := a.csr
	a.mu.Unlock()
	started := settings
	started.Capabilities = 0
	if err := c.Start(context.Background(), started); err != nil {
		return err
	}
	if pending != nil && (settings.TLSConfig == nil || len(settings.TLSConfig.Certificates) == 0) {
		return c.RequestConnectionSettings(pending.request())
	}
	return nil
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
		OnMessage:                 a.onMessage,
		OnOpampConnectionSettings: a.onOpampSettings,
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
			return a.current().SetHealth(a.health())
		},
	}
}

func (a *agent) current() client.OpAMPClient {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

func (a *agent) onMessage(ctx context.Context, msg *types.MessageData) {
	a.replied()
	if msg.RemoteConfig == nil {
		return
	}
	hash := msg.RemoteConfig.GetConfigHash()
	fmt.Printf("config received %x\n", hash)
	a.mu.Lock()
	a.received++
	a.mu.Unlock()
	if a.failsAtStart(msg.RemoteConfig.GetConfig()) {
		go a.rollBack(msg.RemoteConfig)
		return
	}
	status := &protobufs.RemoteConfigStatus{LastRemoteConfigHash: hash}
	if reason := refusal(msg.RemoteConfig.GetConfig()); reason != "" {
		status.Status = protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED
		status.ErrorMessage = reason
		fmt.Printf("config failed %x\n", hash)
	} else {
		a.mu.Lock()
		a.effective = msg.RemoteConfig.GetConfig()
		a.lastRemote = &remoteConfig{hash: hash, config: a.effective}
		a.mu.Unlock()
		status.Status = protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED
		fmt.Printf("config applied %x\n", hash)
	}
	_ = a.current().SetRemoteConfigStatus(status)
	_ = a.current().UpdateEffectiveConfig(ctx)
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
	status := "running"
	if a.failure != "" {
		status = "failed"
	}
	return &protobufs.ComponentHealth{
		Healthy:           a.failure == "",
		StartTimeUnixNano: uint64(a.started.UnixNano()),
		Status:            status,
		LastError:         a.failure,
	}
}

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
