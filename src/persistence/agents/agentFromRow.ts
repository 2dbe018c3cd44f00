// Stored rows → AgentState, the record the registry holds, so filters and views treat stored and
// local agents alike. Rows arrive in array mode in the column order of agentReadSql.ts. Pure: the
// clock comes in as `now`.

import type {
  AgentDescription,
  Attributes,
  ComponentHealth,
  EffectiveConfig,
  PackageStatuses,
  RemoteConfigState,
  Session,
  Transport,
} from '../../events/agentData.ts';
import type { ConnectionId, InstanceUid } from '../../events/ids.ts';
import { noStrings, type AgentState } from '../../projections/agent/agentState.ts';
import { summaryWidth } from './agentReadSql.ts';
import { nanosFromMs } from '../database/storedText.ts';

/** Stored agents were not reached through a connection of this process. */
const storedConnection = 0 as ConnectionId;
const noComponents: Readonly<Record<string, ComponentHealth>> = Object.freeze({});

export interface Freshness {
  readonly now: number;
  /** Rule 10: a stored session counts as connected only while its updated_at is this recent. */
  readonly disconnectAfterMs: number;
}

type Row = readonly unknown[];

const num = (v: unknown): number | null => (v === null ? null : Math.round(v as number));
const strings = (v: unknown): readonly string[] => {
  const a = v as string[] | null;
  return a === null || a.length === 0 ? noStrings : a;
};

/**
 * Rule 10: until when the stored session counts as connected (the later of its updated_at and its
 * alive_at, plus the disconnect threshold), or null when it says disconnected or there is none.
 * alive_at is the holding replica's latest evidence that the agent is alive: its last message, or
 * its WebSocket's last answer to a ping (sessionLedger.ts), so a quiet agent whose socket answers
 * is connected here too, and counts as gone about when its holder would cut the socket.
 */
export function connectedUntil(row: Row, disconnectAfterMs: number): number | null {
  const sessionUpdatedAt = num(row[23]);
  if (row[15] !== true || sessionUpdatedAt === null) return null;
  return Math.max(sessionUpdatedAt, num(row[aliveColumn]) ?? sessionUpdatedAt) + disconnectAfterMs;
}

/** The session's alive_at: the last summary column (agentReadSql.ts). */
const aliveColumn = summaryWidth - 1;

export function agentFromListRow(row: Row, f: Freshness): AgentState {
  const until = connectedUntil(row, f.disconnectAfterMs);
  return summaryFromRow(row, until !== null && f.now <= until);
}

function summaryFromRow(row: Row, connected: boolean): AgentState {
  const uid = row[0] as InstanceUid;
  const lastSeen = num(row[2]) ?? 0;
  const sessionUpdatedAt = num(row[23]);
  const healthReported = row[8] as boolean;
  const health: ComponentHealth | null = healthReported
    ? {
        healthy: row[3] as boolean,
        lastError: row[4] as string,
        status: row[5] as string,
        startTimeNanos: nanosFromMs(row[6] as number | null),
        statusTimeNanos: nanosFromMs(row[7] as number | null),
        components: noComponents,
      }
    : null;
  const description: AgentDescription | null =
    row[20] === true
      ? {
          identifying: JSON.parse(row[10] as string) as Attributes,
          nonIdentifying: JSON.parse(row[11] as string) as Attributes,
        }
      : null;
  const session: Session = {
    connectionId: storedConnection,
    transport: (row[19] as Transport | null) ?? 'ws',
    viaGateway: (row[18] as boolean | null) ?? false,
    remoteAddr: (row[16] as string | null) ?? '',
    tlsSubject: row[17] as string | null,
  };
  return {
    uid,
    firstSeen: num(row[1]) ?? lastSeen,
    lastSeen,
    sequenceNum: BigInt((row[21] as string | null) ?? '0'),
    capabilities: BigInt(row[9] as string),
    description,
    health,
    effectiveConfig: null,
    packages: null,
    missingAttributes: strings(row[12]),
    reservedAttributeConflicts: strings(row[13]),
    complianceUpdatedAt: num(row[14]),
    remoteConfigStatus:
      row[25] === null
        ? null
        : { hash: row[24] as string, status: row[25] as RemoteConfigState, errorMessage: row[26] as string },
    offeredConfigHash: null,
    rolledBackFrom: null,
    connectionSettingsStatus: null,
    offeredSettingsHash: null,
    failedSettingsHash: null,
    availableComponents: null,
    connected,
    session,
    connectionChangedAt: num(row[22]) ?? sessionUpdatedAt ?? lastSeen,
  };
}

/** Right after the summary columns (agentReadSql.ts getAgentSql). */
const detailOffset = summaryWidth;

/** Component health as stored by agentColumns: nanosecond times as decimal strings. */
export function componentsFromJson(value: unknown, depth = 0): Readonly<Record<string, ComponentHealth>> {
  if (value === null || typeof value !== 'object' || depth > 64) return noComponents;
  const out: Record<string, ComponentHealth> = {};
  for (const [name, raw] of Object.entries(value as Record<string, Record<string, unknown>>)) {
    out[name] = {
      healthy: raw.healthy === true,
      lastError: typeof raw.lastError === 'string' ? raw.lastError : '',
      status: typeof raw.status === 'string' ? raw.status : '',
      startTimeNanos: BigInt(typeof raw.startTimeNanos === 'string' ? raw.startTimeNanos : '0'),
      statusTimeNanos: BigInt(typeof raw.statusTimeNanos === 'string' ? raw.statusTimeNanos : '0'),
      components: componentsFromJson(raw.components, depth + 1),
    };
  }
  return out;
}

export function agentFromDetailRow(row: Row, f: Freshness): AgentState {
  const agent = agentFromListRow(row, f);
  const components = row[detailOffset] as string | null;
  const packages = row[detailOffset + 1] as string | null;
  const configs = row[detailOffset + 2] as string | null;
  let effectiveConfig: EffectiveConfig | null = null;
  if (configs !== null) {
    const files: Record<string, { body: string; contentType: string }> = {};
    for (const [name, [body, contentType]] of Object.entries(
      JSON.parse(configs) as Record<string, [string, string]>,
    )) {
      files[name] = { body, contentType };
    }
    effectiveConfig = files;
  }
  return {
    ...agent,
    health: agent.health && {
      ...agent.health,
      components: componentsFromJson(components && JSON.parse(components)),
    },
    packages: packages === null ? null : (JSON.parse(packages) as PackageStatuses),
    effectiveConfig,
  };
}
