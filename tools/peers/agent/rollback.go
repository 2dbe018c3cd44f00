package main

// With -rollback-on MARKER the agent behaves as the OpenTelemetry supervisor does with automatic
// config rollback (opentelemetry-collector-contrib#47853; the reporting it leads to is
// opamp-spec#397): a remote config whose body holds MARKER passes validation but fails at start, and
// the agent goes back to the last remote config it ran. What the server sees is
//
//	APPLIED(A) → APPLYING(B) → FAILED(B) → APPLIED(A)
//
// with health unhealthy while B fails and healthy again (a new start time) once A runs again. With no
// earlier remote config to go back to it reports FAILED(B) and stays as it is. A config offered
// while it rolls back ends the rollback where it is: the newer config wins.
//
// opamp-go merges statuses set before its sender picks them up, so each status waits for two server
// replies before the next is set: the reply to a message already in flight, then the reply to the
// one carrying the status. Without that wait FAILED(B) and APPLIED(A) could reach the server as one
// APPLIED(A), which is not a rollback but an agent that never took B.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"
)

// remoteConfig is a remote config the agent ran: its hash and its map.
type remoteConfig struct {
	hash   []byte
	config *protobufs.AgentConfigMap
}

// repliesPerStep: see the top of this file.
const repliesPerStep = 2

// failsAtStart tells whether this config is one the agent cannot start with (-rollback-on).
func (a *agent) failsAtStart(config *protobufs.AgentConfigMap) bool {
	if a.rollbackOn == "" {
		return false
	}
	for _, file := range config.GetConfigMap() {
		if strings.Contains(string(file.GetBody()), a.rollbackOn) {
			return true
		}
	}
	return false
}

// replied is called for every message from the server; a rollback step may be waiting for it.
func (a *agent) replied() {
	select {
	case a.replies <- struct{}{}:
	default:
	}
}

// awaitReplies drops a reply already signalled, then waits for n more (or stops waiting after a
// minute: a server that stopped answering sees the next status whenever it answers again). False
// when another remote config arrived meanwhile (generation is the count of those received before).
func (a *agent) awaitReplies(n int, generation int) bool {
	select {
	case <-a.replies:
	default:
	}
	deadline := time.After(time.Minute)
wait:
	for i := 0; i < n; i++ {
		select {
		case <-a.replies:
		case <-deadline:
			break wait
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.received == generation
}

// rollBack runs the sequence at the top of this file for the offered config (in its own goroutine:
// it waits for replies that the client's receiving goroutine delivers, and outlives the callback
// that started it, so it does not use that callback's context).
func (a *agent) rollBack(offered *protobufs.AgentRemoteConfig) {
	hash := offered.GetConfigHash()
	a.mu.Lock()
	previous := a.lastRemote
	generation := a.received
	a.mu.Unlock()
	failure := fmt.Sprintf("the agent failed to start with config %x", hash)
	if previous == nil {
		a.report(failedStatus(hash, failure+"; no earlier config to go back to"))
		fmt.Printf("config failed %x\n", hash)
		return
	}
	a.report(&protobufs.RemoteConfigStatus{
		LastRemoteConfigHash: hash,
		Status:               protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLYING,
	})
	fmt.Printf("config applying %x\n", hash)
	if !a.awaitReplies(repliesPerStep, generation) {
		return
	}

	a.setHealth(failure)
	a.report(failedStatus(hash, fmt.Sprintf("%s; rolling back to %x", failure, previous.hash)))
	fmt.Printf("config failed %x\n", hash)
	if !a.awaitReplies(repliesPerStep, generation) {
		return
	}

	a.mu.Lock()
	a.effective = previous.config
	a.started = time.Now()
	a.mu.Unlock()
	a.setHealth("")
	a.report(&protobufs.RemoteConfigStatus{
		LastRemoteConfigHash: previous.hash,
		Status:               protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED,
	})
	_ = a.current().UpdateEffectiveConfig(context.Background())
	fmt.Printf("config rolled back to %x from %x\n", previous.hash, hash)
}

func failedStatus(hash []byte, reason string) *protobufs.RemoteConfigStatus {
	return &protobufs.RemoteConfigStatus{
		LastRemoteConfigHash: hash,
		Status:               protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED,
		ErrorMessage:         reason,
	}
}

func (a *agent) report(status *protobufs.RemoteConfigStatus) {
	if err := a.current().SetRemoteConfigStatus(status); err != nil {
		fmt.Printf("status not set %v\n", err)
	}
}

// setHealth reports the agent failing with this error, or running again when it is empty.
func (a *agent) setHealth(lastError string) {
	a.mu.Lock()
	a.failure = lastError
	a.mu.Unlock()
	_ = a.current().SetHealth(a.health())
}
