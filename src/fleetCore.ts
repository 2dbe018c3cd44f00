// The fleet core, one factory for both of its hosts: the service (src/app.ts adds listeners,
// persistence, telemetry and lifecycle) and the offline replay (tools/replay). It wires the bus, the
// projections, the OpAMP handler and the liveness sweeper, and knows their stop order.
//
//   transport → handler: decode (the core's decoder) → look up → decide → publish → reply
//                                              │
//                              bus ────────────┴──→ registry, compliance counters, desired configs,
//                                                   and the host's own (telemetry, persistence's
//                                                   change tracker, …)
//   connection owners: which WebSocket holds which agent (handler claims, close releases)
//   admission: which credential may speak for an id (handler asks; revocations close connections)
//   liveness sweeper: registry → sweep → release from owners → publish
//   config pusher: desired configs changed → owners.held → handler.push → WebSocket agents
//
// Time and timers come from the injected scheduler (virtual in specs and replays).

import type { SchedulerLike } from 'rxjs';
import type { ReportLimits } from './projections/agent/reportLimits.ts';
import { createEventBus, type EventBus } from './events/bus.ts';
import { createCommandQueue, type CommandQueue } from './io/opamp/commandQueue.ts';
import { createConfigPusher } from './io/opamp/configPusher.ts';
import { createEncoder } from './io/opamp/codec.ts';
import { createDecoder, type Decoder } from './io/opamp/decoder.ts';
import type { AgentAdmission } from './io/opamp/agentAdmission.ts';
import {
  createConnectionOwners,
  type ConnectionOwners,
  type OwnershipPolicy,
} from './io/opamp/connectionOwners.ts';
import { createRevocationCloser } from './io/opamp/revocationCloser.ts';
import { compileOwnTelemetry, type OwnTelemetryEntry } from './projections/ownTelemetry/ownTelemetry.ts';
import { createOpampHandler, type HandlerDeps, type OpampHandler } from './io/opamp/handler.ts';
import {
  createComplianceCounters,
  type ComplianceCountersProjection,
} from './projections/compliance/complianceCounters.ts';
import { createLivenessSweeper, type LivenessSweeper } from './projections/liveness/livenessSweeper.ts';
import { livenessThresholds, type LivenessThresholds } from './projections/liveness/sweep.ts';
import {
  createRegistryProjection,
  type ProjectionErrorHandler,
  type Registry,
} from './projections/registry/registryProjection.ts';
import {
  createDesiredConfigProjection,
  type DesiredConfigs,
} from './projections/remoteConfig/desiredConfigProjection.ts';

export interface FleetSettings {
  readonly heartbeatIntervalMs: number;
  readonly staleMissedHeartbeats: number;
  readonly requiredAttributes: readonly string[];
  /** agents.limits; none checked when absent (the offline replay). */
  readonly reportLimits?: ReportLimits;
  /** fleet.max_agents; unlimited when absent (the offline replay). */
  readonly maxAgents?: number;
  /** Who may hold an agent (connectionOwners.ts); the open policy when absent (the offline replay). */
  readonly ownership?: OwnershipPolicy;
}

export interface FleetCoreOptions {
  readonly scheduler: SchedulerLike;
  readonly fleet: FleetSettings;
  /** Counts OpAMP messages and message errors. */
  readonly observer: HandlerDeps['observer'];
  /** A projection or the sweep failed (logged and counted by the host; the stream goes on). */
  readonly onError: ProjectionErrorHandler;
  /** Traffic recording hooks of the handler. */
  readonly onInbound?: HandlerDeps['onInbound'];
  readonly onClosed?: HandlerDeps['onClosed'];
  /** own_telemetry: where agents send their own telemetry; nothing offered when absent or empty. */
  readonly ownTelemetry?: readonly OwnTelemetryEntry[];
  /** Answers agents' CSRs (the service, with agents.ca set). */
  readonly certificates?: HandlerDeps['certificates'];
  /** The AgentToServer decoder (one per core; made here when not given). */
  readonly decoder?: Decoder;
  /** Credentials' bindings to ids (agentAdmission.ts); every connection may speak for any id when absent. */
  readonly admission?: AgentAdmission;
  /** Deliver events on this scheduler instead of synchronously (specs). */
  readonly deliverOn?: SchedulerLike;
}

export interface FleetCore {
  readonly bus: EventBus;
  readonly registry: Registry;
  readonly compliance: ComplianceCountersProjection;
  /** Each agent's desired remote config, folded from config events. */
  readonly desired: DesiredConfigs;
  readonly handler: OpampHandler;
  /** Which WebSocket holds which agent here (the handler, the pusher, the close path and the sweep use it). */
  readonly owners: ConnectionOwners;
  /** Commands waiting for agents held here (restart jobs queue them; replies and pushes take them). */
  readonly commands: CommandQueue;
  readonly thresholds: LivenessThresholds;
  /** Starts the liveness sweep; the service calls it once its listeners are up. */
  startSweeping(): void;
  /**
   * Stops in order: the sweep, then the bus completes (subscribers of the host, such as
   * persistence's change tracker, see the completion and deliver what they hold), then the
   * projections unsubscribe. Their last state stays readable.
   */
  stop(): void;
}

export function createFleetCore(options: FleetCoreOptions): FleetCore {
  const { scheduler, fleet, onError } = options;
  const bus = createEventBus(options.deliverOn ? { deliverOn: options.deliverOn } : {});
  const registry = createRegistryProjection(bus.events$, onError);
  const compliance = createComplianceCounters(bus.events$, onError);
  const desired = createDesiredConfigProjection(bus.events$, onError);
  const thresholds = livenessThresholds(fleet.heartbeatIntervalMs, fleet.staleMissedHeartbeats);
  const commands = createCommandQueue();
  const owners = createConnectionOwners(fleet.ownership);
  const handler = createOpampHandler({
    bus,
    decoder: options.decoder ?? createDecoder(),
    encoder: createEncoder(),
    registry,
    owners,
    now: () => scheduler.now(),
    requiredAttributes: fleet.requiredAttributes,
    reportLimits: fleet.reportLimits,
    maxAgents: fleet.maxAgents,
    admission: options.admission,
    observer: options.observer,
    desiredFor: (agent) => desired.desiredFor(agent),
    commands,
    onInbound: options.onInbound,
    onClosed: options.onClosed,
    certificates: options.certificates,
    ownTelemetryFor: compileOwnTelemetry(options.ownTelemetry ?? []),
  });
  // A config change reaches connected WebSocket agents at once, not at their next heartbeat.
  const pusher = createConfigPusher({
    changes$: desired.changes$,
    handler,
    owners,
    scheduler,
    onError: (error) => onError('config-pusher', error),
  });
  const revocations =
    options.admission &&
    createRevocationCloser({
      events$: bus.events$,
      owners,
      admission: options.admission,
      publish: (event) => bus.publish(event),
      now: () => scheduler.now(),
      onError: (error) => onError('revocation-closer', error),
    });
  let sweeper: LivenessSweeper | undefined;

  return {
    bus,
    registry,
    compliance,
    desired,
    handler,
    owners,
    commands,
    thresholds,
    startSweeping() {
      sweeper ??= createLivenessSweeper({
        bus,
        registry,
        thresholds,
        scheduler,
        onError,
        onGone: (uid) => owners.releaseAgent(uid),
        heldHere: (uid) => owners.holderOf(uid)?.transport === 'ws',
      });
    },
    stop() {
      sweeper?.stop();
      pusher.stop();
      revocations?.stop();
      bus.close();
      registry.stop();
      compliance.stop();
      desired.stop();
    },
  };
}
