// AgentState → column arrays for the batched writes (one array per column, passed through UNNEST,
// so the statement text never grows with the batch). Pure. Times are Unix ms as float8; the SQL
// turns them into timestamptz.

import type { ComponentHealth } from '../../events/agentData.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { aliveIn, type AliveTimes } from './sessionLedger.ts';
import {
  storedJson,
  storedMs,
  storedNanos,
  storedPlainJson,
  storedText,
  textArrayLiteral,
} from '../database/storedText.ts';

export interface AgentColumns {
  readonly uid: string[];
  readonly firstSeen: number[];
  readonly lastSeen: number[];
  readonly healthy: boolean[];
  readonly healthError: string[];
  readonly healthStatus: string[];
  readonly healthStartTime: (number | null)[];
  readonly healthStatusTime: (number | null)[];
  readonly healthReported: boolean[];
  readonly healthComponents: (string | null)[];
  readonly capabilities: string[];
  readonly identifying: string[];
  readonly nonIdentifying: string[];
  readonly missingAttributes: string[];
  readonly reservedAttributeConflicts: string[];
  readonly complianceUpdatedAt: (number | null)[];
  readonly packages: (string | null)[];
  readonly remoteConfigHash: string[];
  readonly remoteConfigStatus: (string | null)[];
  readonly remoteConfigError: string[];
}

export interface SessionColumns {
  readonly uid: string[];
  readonly connected: boolean[];
  readonly remoteAddr: string[];
  readonly tlsSubject: (string | null)[];
  readonly viaGateway: boolean[];
  readonly transport: string[];
  readonly descriptionReported: boolean[];
  readonly sequenceNum: string[];
  /** Never null: with updated_at, the session row's guard (agentWriteSql.ts). */
  readonly connectionChangedAt: number[];
  /** The agent's last_seen (rule 9), never the write time. */
  readonly updatedAt: number[];
  /**
   * When the holding replica last knew the agent alive: its last_seen, or later the last answer of
   * the WebSocket here that holds it (sessionLedger.ts aliveTime). Never the write time.
   */
  readonly aliveAt: number[];
}

export interface ConfigColumns {
  readonly uid: string[];
  readonly filename: string[];
  readonly body: string[];
  readonly contentType: string[];
  readonly updatedAt: number[];
}

const emptyObject = '{}';

/** The component tree below the root, with nanosecond times kept exactly (as decimal strings). */
export function componentsJson(health: ComponentHealth): string | null {
  return Object.keys(health.components).length === 0 ? null : storedJson(health.components);
}

export function agentColumns(agents: readonly AgentState[]): AgentColumns {
  const c: AgentColumns = {
    uid: [],
    firstSeen: [],
    lastSeen: [],
    healthy: [],
    healthError: [],
    healthStatus: [],
    healthStartTime: [],
    healthStatusTime: [],
    healthReported: [],
    healthComponents: [],
    capabilities: [],
    identifying: [],
    nonIdentifying: [],
    missingAttributes: [],
    reservedAttributeConflicts: [],
    complianceUpdatedAt: [],
    packages: [],
    remoteConfigHash: [],
    remoteConfigStatus: [],
    remoteConfigError: [],
  };
  for (const a of agents) {
    const h = a.health;
    c.uid.push(a.uid);
    c.firstSeen.push(storedMs(a.firstSeen) ?? a.lastSeen);
    c.lastSeen.push(a.lastSeen);
    c.healthy.push(h?.healthy ?? false);
    c.healthError.push(storedText(h?.lastError ?? ''));
    c.healthStatus.push(storedText(h?.status ?? ''));
    c.healthStartTime.push(h ? storedNanos(h.startTimeNanos) : null);
    c.healthStatusTime.push(h ? storedNanos(h.statusTimeNanos) : null);
    c.healthReported.push(h !== null);
    c.healthComponents.push(h ? componentsJson(h) : null);
    c.capabilities.push(BigInt.asUintN(64, a.capabilities).toString());
    c.identifying.push(a.description ? storedPlainJson(a.description.identifying) : emptyObject);
    c.nonIdentifying.push(a.description ? storedPlainJson(a.description.nonIdentifying) : emptyObject);
    c.missingAttributes.push(textArrayLiteral(a.missingAttributes));
    c.reservedAttributeConflicts.push(textArrayLiteral(a.reservedAttributeConflicts));
    c.complianceUpdatedAt.push(storedMs(a.complianceUpdatedAt));
    c.packages.push(a.packages ? storedPlainJson(a.packages) : null);
    const r = a.remoteConfigStatus;
    c.remoteConfigHash.push(r?.hash ?? '');
    c.remoteConfigStatus.push(r?.status ?? null);
    c.remoteConfigError.push(storedText(r?.errorMessage ?? ''));
  }
  return c;
}

/** `alive`: the agents' alive times where later than their last_seen (sessionLedger.ts). */
export function sessionColumns(agents: readonly AgentState[], alive: AliveTimes = new Map()): SessionColumns {
  const c: SessionColumns = {
    uid: [],
    connected: [],
    remoteAddr: [],
    tlsSubject: [],
    viaGateway: [],
    transport: [],
    descriptionReported: [],
    sequenceNum: [],
    connectionChangedAt: [],
    updatedAt: [],
    aliveAt: [],
  };
  for (const a of agents) {
    const s = a.session;
    c.uid.push(a.uid);
    c.connected.push(a.connected);
    c.remoteAddr.push(storedText(s.remoteAddr));
    c.tlsSubject.push(s.tlsSubject === null ? null : storedText(s.tlsSubject));
    c.viaGateway.push(s.viaGateway);
    c.transport.push(s.transport);
    c.descriptionReported.push(a.description !== null);
    c.sequenceNum.push(BigInt.asUintN(64, a.sequenceNum).toString());
    c.connectionChangedAt.push(storedMs(a.connectionChangedAt) ?? a.lastSeen);
    c.updatedAt.push(a.lastSeen);
    c.aliveAt.push(aliveIn(a, alive));
  }
  return c;
}

export function configColumns(agents: readonly AgentState[]): ConfigColumns {
  const c: ConfigColumns = { uid: [], filename: [], body: [], contentType: [], updatedAt: [] };
  for (const a of agents) {
    if (a.effectiveConfig === null) continue;
    // Two names that differ only in unstorable characters would collide once cleaned: first wins.
    const names = new Set<string>();
    for (const [name, file] of Object.entries(a.effectiveConfig)) {
      const filename = storedText(name);
      if (names.has(filename)) continue;
      names.add(filename);
      c.uid.push(a.uid);
      c.filename.push(filename);
      c.body.push(storedText(file.body));
      c.contentType.push(storedText(file.contentType));
      c.updatedAt.push(a.lastSeen);
    }
  }
  return c;
}
