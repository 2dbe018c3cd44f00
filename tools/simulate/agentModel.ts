// One simulated agent's protocol state and the messages it sends: a full status report first (and
// whenever the server asks for full state), heartbeats otherwise, health that flaps at a chosen rate,
// sequence numbers that go up by one per message and restart at 0 when the agent "restarts". It
// accepts remote config like a supervised Collector: it reports APPLYING for a config it receives,
// then APPLIED (or FAILED, for the share of agents told to fail) once "applied". Agents told to roll
// back go back to the config they ran before and report it APPLIED, as the supervisor does after an
// automatic rollback.

import { randomUUID } from 'node:crypto';
import { encodeAgentToServer } from '../../src/io/opamp/codec.ts';
import { instanceUidBytes } from '../../src/io/opamp/instanceUid.ts';
import { describeAgent } from './descriptions.ts';

/**
 * ReportsStatus | AcceptsRemoteConfig | ReportsEffectiveConfig | AcceptsRestartCommand | ReportsHealth |
 * ReportsRemoteConfig | ReportsHeartbeat.
 */
export const simulatedCapabilities = 0x1 | 0x2 | 0x4 | 0x400 | 0x800 | 0x1000 | 0x2000;
const ReportFullState = 1;

export type SimConfigStatus = 'unset' | 'applied' | 'applying' | 'failed';
const statusCodes: Readonly<Record<SimConfigStatus, number>> = {
  unset: 0,
  applied: 1,
  applying: 2,
  failed: 3,
};

export interface SimAgent {
  /** Slot in the fleet (stable across "new agent" churn, which replaces the uid). */
  readonly index: number;
  uid: string;
  uidBytes: Uint8Array;
  /** Hex of the uid bytes: how replies are routed back on a gateway. */
  uidKey: string;
  sequenceNum: number;
  healthy: boolean;
  needsFullState: boolean;
  /** Set once the first reply arrived (the server has registered it). */
  registered: boolean;
  /** The remote config this agent runs: its hash (hex) and what it reports of it. */
  configHash: string;
  configStatus: SimConfigStatus;
  /** The remote config status changed and goes into the next message. */
  reportConfig: boolean;
  /** This agent fails to apply every remote config it receives. */
  failsConfigs: boolean;
  /** This agent rolls back every remote config it receives while it runs another one. */
  rollsBack: boolean;
  /** The hash the agent ran before the config it is applying ('' when none). */
  previousHash: string;
  /** When the agent's process started (Unix ms): its health start time, new at every restart. */
  startedAt: number;
  /** Send times of messages not yet answered (reply latency). */
  readonly pending: number[];
}

export interface MessageOptions {
  readonly configBytes: number;
  readonly attributes: number;
}

export function createSimAgent(index: number): SimAgent {
  const agent = {
    index,
    pending: [],
    sequenceNum: 0,
    healthy: true,
    needsFullState: true,
    registered: false,
    configHash: '',
    configStatus: 'unset',
    reportConfig: false,
    failsConfigs: false,
    rollsBack: false,
    previousHash: '',
    startedAt: Date.now(),
  } as unknown as SimAgent;
  renew(agent);
  return agent;
}

/** A new identity in the same slot ("new agent" churn). */
export function renew(agent: SimAgent): void {
  agent.uid = randomUUID();
  agent.uidBytes = instanceUidBytes(agent.uid);
  agent.uidKey = Buffer.from(agent.uidBytes).toString('hex');
  agent.sequenceNum = 0;
  agent.needsFullState = true;
  agent.registered = false;
  agent.configHash = '';
  agent.configStatus = 'unset';
  agent.pending.length = 0;
}

const configCache = new Map<number, Buffer>();

/** A YAML-looking effective config of exactly `bytes` bytes (shared between agents: same size, same body). */
function configBody(bytes: number): Buffer {
  let body = configCache.get(bytes);
  if (body === undefined) {
    const head =
      'receivers:\n  otlp:\n    protocols: { grpc: {}, http: {} }\nexporters:\n  otlphttp:\n    endpoint: https://collector.example:4318\n# ';
    body = Buffer.alloc(bytes, 'x');
    body.write(head.slice(0, bytes));
    configCache.set(bytes, body);
  }
  return body;
}

function health(agent: SimAgent) {
  const nowNanos = BigInt(Date.now()) * 1_000_000n;
  return {
    healthy: agent.healthy,
    startTimeUnixNano: (BigInt(agent.startedAt) * 1_000_000n).toString(),
    statusTimeUnixNano: nowNanos.toString(),
    status: agent.healthy ? 'StatusOK' : 'StatusRecoverableError',
    lastError: agent.healthy ? '' : 'exporter otlphttp: connection refused',
  };
}

/** The next message of this agent. `flap` toggles health and reports it. */
export function nextMessage(agent: SimAgent, options: MessageOptions, flap = false): Uint8Array {
  const fields: Record<string, unknown> = {
    instanceUid: agent.uidBytes,
    sequenceNum: agent.sequenceNum++,
    capabilities: simulatedCapabilities,
  };
  if (flap) agent.healthy = !agent.healthy;
  if (agent.needsFullState || agent.reportConfig) {
    agent.reportConfig = false;
    fields.remoteConfigStatus = {
      lastRemoteConfigHash: Buffer.from(agent.configHash, 'hex'),
      status: statusCodes[agent.configStatus],
      errorMessage: agent.configStatus === 'failed' ? 'simulated: the agent refused this config' : '',
    };
  }
  if (agent.needsFullState) {
    agent.needsFullState = false;
    fields.agentDescription = describeAgent(agent.index, agent.uid, options.attributes);
    fields.health = health(agent);
    fields.effectiveConfig = {
      configMap: {
        configMap: { 'collector.yaml': { body: configBody(options.configBytes), contentType: 'text/yaml' } },
      },
    };
  } else if (flap) {
    fields.health = health(agent);
  }
  return encodeAgentToServer(fields);
}

export function disconnectMessage(agent: SimAgent): Uint8Array {
  return encodeAgentToServer({
    instanceUid: agent.uidBytes,
    sequenceNum: agent.sequenceNum++,
    capabilities: simulatedCapabilities,
    agentDisconnect: {},
  });
}

/** What a reply asks of the agent. */
export interface ReplyEffects {
  /** A remote config arrived that the agent does not run yet: it is now APPLYING it. */
  readonly configReceived: boolean;
  /** A restart command arrived (the agent accepts them): it restarts, skipping the rest. */
  readonly restart: boolean;
}

/** The process restarted: it counts sequence numbers from 0 again and reports everything. */
export function restartProcess(agent: SimAgent): void {
  agent.startedAt = Date.now();
  agent.sequenceNum = 0;
  agent.needsFullState = true;
}

/** Reads what matters in a reply: a request for full state, a remote config. */
export function onReply(
  agent: SimAgent,
  reply: { flags?: unknown; remoteConfig?: { configHash?: Uint8Array }; command?: unknown },
): ReplyEffects {
  agent.registered = true;
  // opamp-go runs a restart command and skips the rest of the message.
  if (reply.command !== undefined && reply.command !== null) return { configReceived: false, restart: true };
  if ((Number(reply.flags ?? 0) & ReportFullState) !== 0) agent.needsFullState = true;
  const hash = Buffer.from(reply.remoteConfig?.configHash ?? []).toString('hex');
  if (hash === '' || hash === agent.configHash) return { configReceived: false, restart: false };
  agent.previousHash = agent.configStatus === 'applied' ? agent.configHash : '';
  agent.configHash = hash;
  agent.configStatus = 'applying';
  agent.reportConfig = true;
  return { configReceived: true, restart: false };
}

/** The config the agent received is applied (or refused, or rolled back): report it in the next message. */
export function finishApplying(agent: SimAgent): void {
  if (agent.configStatus !== 'applying') return;
  if (agent.rollsBack && agent.previousHash !== '') {
    agent.configHash = agent.previousHash;
    agent.configStatus = 'applied';
  } else agent.configStatus = agent.failsConfigs ? 'failed' : 'applied';
  agent.reportConfig = true;
}
