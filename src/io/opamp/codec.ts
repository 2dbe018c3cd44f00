// Protobuf encode/decode for OpAMP. The messages of every status report and its reply go through the
// fast paths (agentToServerReader.ts, serverToAgentWriter.ts); everything else through protobufjs,
// compiled from the project's own proto/opamp/v1 files the first time it is needed, so a service that
// only ever sees status reports never loads it. The Wire* interfaces describe what protobufjs hands
// back, so the translation can read decoded messages with types; they never leave src/io.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type Long from 'long';
import type protobufjs from 'protobufjs';
import type { AgentDescription, ComponentHealth } from '../../events/agentData.ts';
import { readAgentToServer } from './agentToServerReader.ts';
import { writeServerToAgent } from './serverToAgentWriter.ts';

const protoFile = fileURLToPath(new URL('../../../proto/opamp/v1/opamp.proto', import.meta.url));
/** Synchronous loading on first use (protobufjs is CommonJS); the codec is synchronous. */
const load = createRequire(import.meta.url);
let types:
  | { AgentToServer: protobufjs.Type; ServerToAgent: protobufjs.Type; AgentRemoteConfig: protobufjs.Type }
  | undefined;

function messageTypes() {
  if (types === undefined) {
    const root = (load('protobufjs') as typeof protobufjs).loadSync(protoFile);
    types = {
      AgentToServer: root.lookupType('opamp.proto.v1.AgentToServer'),
      ServerToAgent: root.lookupType('opamp.proto.v1.ServerToAgent'),
      AgentRemoteConfig: root.lookupType('opamp.proto.v1.AgentRemoteConfig'),
    };
  }
  return types;
}

type Maybe<T> = T | null | undefined;
/**
 * A 64-bit field: protobufjs gives Long (number only if Long is missing, which it is not here); the
 * fast path (agentToServerReader.ts) gives bigint.
 */
export type Wire64 = Long | number | bigint;

export interface WireAnyValue {
  stringValue?: Maybe<string>;
  boolValue?: Maybe<boolean>;
  intValue?: Maybe<Wire64>;
  doubleValue?: Maybe<number>;
  arrayValue?: Maybe<{ values?: Maybe<WireAnyValue[]> }>;
  kvlistValue?: Maybe<{ values?: Maybe<WireKeyValue[]> }>;
  bytesValue?: Maybe<Uint8Array>;
  value?: Maybe<string>;
}
export interface WireKeyValue {
  key: string;
  value?: Maybe<WireAnyValue>;
}
export interface WireComponentHealth {
  healthy: boolean;
  startTimeUnixNano: Wire64;
  lastError: string;
  status: string;
  statusTimeUnixNano: Wire64;
  componentHealthMap: Record<string, WireComponentHealth>;
}
export interface WirePackageStatus {
  name: string;
  agentHasVersion: string;
  agentHasHash: Uint8Array;
  serverOfferedVersion: string;
  serverOfferedHash: Uint8Array;
  status: number;
  errorMessage: string;
  downloadDetails?: Maybe<{ downloadPercent: number; downloadBytesPerSecond: number }>;
}
export interface WireCustomMessage {
  capability: string;
  type: string;
  data: Uint8Array;
}
export interface WireAgentToServer {
  instanceUid: Uint8Array;
  sequenceNum: Wire64;
  capabilities: Wire64;
  flags: Wire64;
  agentDescription?: Maybe<{
    identifyingAttributes: WireKeyValue[];
    nonIdentifyingAttributes: WireKeyValue[];
  }>;
  /** The description in domain terms, as toDescription would make it (the fast decoder's, when every attribute is a plain string). */
  descriptionData?: AgentDescription;
  health?: Maybe<WireComponentHealth>;
  /** The health already in domain terms, as toHealth would make it of `health` (the fast decoder's). */
  healthData?: ComponentHealth;
  effectiveConfig?: Maybe<{
    configMap?: Maybe<{ configMap: Record<string, { body: Uint8Array; contentType: string }> }>;
  }>;
  remoteConfigStatus?: Maybe<{ lastRemoteConfigHash: Uint8Array; status: number; errorMessage: string }>;
  packageStatuses?: Maybe<{
    packages: Record<string, WirePackageStatus>;
    serverProvidedAllPackagesHash: Uint8Array;
    errorMessage: string;
  }>;
  agentDisconnect?: Maybe<object>;
  customCapabilities?: Maybe<{ capabilities: string[] }>;
  customMessage?: Maybe<WireCustomMessage>;
}

/** What the service sends. Only the fields it uses. */
export interface ServerToAgentFields {
  instanceUid: Uint8Array;
  errorResponse?: { type: number; errorMessage: string; retryInfo?: { retryAfterNanoseconds: number } };
  flags?: number;
  capabilities?: number;
  agentIdentification?: { newInstanceUid: Uint8Array };
  customCapabilities?: { readonly capabilities: readonly string[] };
  customMessage?: { capability: string; type: string; data: Uint8Array };
  /** ServerToAgentCommand; Restart is 0, so presence is the signal (OPAMP.md). */
  command?: { type: number };
}

export interface AgentRemoteConfigFields {
  config: { configMap: Record<string, { body: Uint8Array; contentType: string }> };
  configHash: Uint8Array;
}

/**
 * Throws on bytes that are not an AgentToServer (the handler turns that into an error reply). The
 * fast path decodes what the service reads; protobufjs decodes the rest and decides on malformed input.
 */
export function decodeAgentToServer(bytes: Uint8Array): WireAgentToServer {
  return (
    readAgentToServer(bytes) ?? (messageTypes().AgentToServer.decode(bytes) as unknown as WireAgentToServer)
  );
}

/**
 * The reply's bytes after `headroom` zero bytes (a transport's framing, written in front without
 * copying the reply): the fast path writes the usual replies, protobufjs everything else.
 */
export function encodeServerToAgent(fields: ServerToAgentFields, headroom = 0): Uint8Array {
  const fast = writeServerToAgent(fields, headroom);
  if (fast !== undefined) return fast;
  const { ServerToAgent } = messageTypes();
  const bytes = ServerToAgent.encode(ServerToAgent.create(fields)).finish();
  if (headroom === 0) return bytes;
  const out = new Uint8Array(headroom + bytes.length);
  out.set(bytes, headroom);
  return out;
}

/** An AgentRemoteConfig alone (the reply appends it as ServerToAgent field 3; see remoteConfigWire.ts). */
export function encodeAgentRemoteConfig(fields: AgentRemoteConfigFields): Uint8Array {
  const { AgentRemoteConfig } = messageTypes();
  return AgentRemoteConfig.encode(AgentRemoteConfig.create(fields)).finish();
}

/** For tools and specs that play the agent's part. */
export function encodeAgentToServer(fields: Record<string, unknown>): Uint8Array {
  const { AgentToServer } = messageTypes();
  return AgentToServer.encode(AgentToServer.fromObject(fields)).finish();
}

/** A decoded ServerToAgent as an agent sees it (tools and specs). */
export type DecodedServerToAgent = ServerToAgentFields & {
  remoteConfig?: AgentRemoteConfigFields;
} & Record<string, unknown>;

export function decodeServerToAgent(bytes: Uint8Array): DecodedServerToAgent {
  const { ServerToAgent } = messageTypes();
  return ServerToAgent.toObject(ServerToAgent.decode(bytes), {
    longs: String,
    defaults: false,
  }) as never;
}

/** Exact unsigned 64-bit value of a decoded field. */
export function toBigUint(value: Wire64 | null | undefined): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(value);
  return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}

/** Exact signed 64-bit value (AnyValue int_value). */
export function toBigInt(value: Wire64 | null | undefined): bigint {
  return BigInt.asIntN(64, toBigUint(value));
}
