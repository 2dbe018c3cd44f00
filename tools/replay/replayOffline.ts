// Offline replay: feeds a recording through the service's own core (src/fleetCore.ts: the OpAMP
// handler's decisions → events on the bus → registry, compliance counters, liveness sweep) in
// virtual time. The clock moves to each
// record's receive time before the record is handled, so sweeps run between records exactly when
// they fall due, and disconnects and evictions happen as they would have live.

import { createFleetCore } from '../../src/fleetCore.ts';
import { createConnection, type OpampConnection } from '../../src/io/opamp/connection.ts';
import { handledNow } from '../../src/io/opamp/handler.ts';
import type { RecordingReader, ReadSummary } from '../../src/io/recorder/recordingReader.ts';
import type { ComplianceCounts } from '../../src/projections/compliance/complianceCounters.ts';
import type { Registry } from '../../src/projections/registry/registryProjection.ts';
import { collectTimelines, type AgentTimeline } from './timeline.ts';
import { createVirtualClock } from './virtualClock.ts';
import type { ConnectionId, InstanceUid } from '../../src/events/ids.ts';

export interface FleetSettings {
  /** Milliseconds. */
  readonly heartbeat_interval: number;
  readonly stale_missed_heartbeats: number;
  readonly required_attributes: readonly string[];
}

/** The service defaults, for recordings whose header carries no fleet settings. */
export const defaultFleetSettings: FleetSettings = {
  heartbeat_interval: 30_000,
  stale_missed_heartbeats: 3,
  required_attributes: [],
};

export interface ReplayOptions {
  /** Overrides the recording header's fleet settings. */
  readonly fleet?: FleetSettings | undefined;
  /** Stop at this Unix ms: later records are not handled; the clock (and sweeps) run up to it. */
  readonly until?: number | undefined;
  /** Collect timelines (all agents, or only these uids). */
  readonly timelines?: boolean | undefined;
  readonly only?: ReadonlySet<string> | undefined;
}

export interface ReplayResult {
  readonly registry: Registry;
  readonly compliance: ComplianceCounts;
  readonly timelines: ReadonlyMap<InstanceUid, AgentTimeline>;
  readonly read: ReadSummary;
  readonly messages: number;
  readonly closes: number;
  readonly rejected: number;
  readonly projectionErrors: number;
  /** Virtual time at the end (Unix ms). */
  readonly endedAt: number;
  readonly fleet: FleetSettings;
}

export async function replayOffline(
  reader: RecordingReader,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const fleet = options.fleet ?? reader.header.fleet ?? defaultFleetSettings;
  const clock = createVirtualClock(reader.header.startedAt);
  let projectionErrors = 0;
  const onError = () => void projectionErrors++;
  const counts = { messages: 0, closes: 0, rejected: 0 };
  const core = createFleetCore({
    scheduler: clock.scheduler,
    fleet: {
      heartbeatIntervalMs: fleet.heartbeat_interval,
      staleMissedHeartbeats: fleet.stale_missed_heartbeats,
      requiredAttributes: fleet.required_attributes,
    },
    observer: { messageReceived: () => undefined, messageFailed: () => void counts.rejected++ },
    onError,
  });
  const { handler, registry } = core;
  const timelines =
    options.timelines === false ? undefined : collectTimelines(core.bus.events$, options.only);
  core.startSweeping();
  const connections = new Map<number, OpampConnection>();
  const until = options.until ?? Infinity;

  outer: for await (const batch of reader.batches()) {
    for (const record of batch) {
      if (record.receivedAt > until) break outer;
      clock.advanceTo(record.receivedAt);
      let connection = connections.get(record.connectionId);
      if (record.kind === 'connectionClosed') {
        counts.closes++;
        if (connection !== undefined) handler.closed(connection);
        connections.delete(record.connectionId);
        continue;
      }
      counts.messages++;
      if (connection === undefined) {
        // The recorded connection id, so replayed sessions carry the ids the live registry had.
        connection = createConnection(
          record.transport,
          record.remoteAddr,
          record.tlsSubject,
          record.connectionId as ConnectionId,
        );
        // Each plain-HTTP request is its own connection; only WebSockets live on.
        if (record.transport === 'ws') connections.set(record.connectionId, connection);
      }
      handledNow(handler.handle(connection, record.payload));
    }
  }
  if (Number.isFinite(until)) clock.advanceTo(until);
  timelines?.stop();
  const result: ReplayResult = {
    registry,
    compliance: core.compliance.current(),
    timelines: timelines?.timelines ?? new Map(),
    read: reader.summary,
    ...counts,
    projectionErrors,
    endedAt: clock.now(),
    fleet,
  };
  core.stop();
  return result;
}
