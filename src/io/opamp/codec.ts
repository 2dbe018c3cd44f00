// Protobuf encode/decode for OpAMP, compiled at startup from the project's own proto/opamp/v1 files.
// The Wire* interfaces describe what protobufjs hands back, so the translation can read decoded
// messages with types; they never leave src/io.

import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type Long from 'long';
import { readAgentToServer } from './agentToServerReader.ts';
import { writeServerToAgent } from './serverToAgentWriter.ts';

const protoFile = fileURLToPath(new URL('../../../proto/opamp/v1/opamp.proto', import.meta.url));
const root = protobuf.loadSync(protoFile);
const AgentToServerType = root.lookupType('opamp.proto.v1.AgentToServer');
const ServerToAgentType = root.lookupType('opamp.proto.v1.ServerToAgent');

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
  health?: Maybe<WireComponentHealth>;
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
  customCapabilities?: { capabilities: string[] };
  customMessage?: { capability: string; type: string; data: Uint8Array };
}

/**
 * Throws on bytes that are not an AgentToServer (the handler turns that into an error reply). The
 * fast path decodes what the service reads; protobufjs decodes the rest and decides on malformed input.
 */
export function decodeAgentToServer(bytes: Uint8Array): WireAgentToServer {
  return readAgentToServer(bytes) ?? (AgentToServerType.decode(bytes) as unknown as WireAgentToServer);
}

/** The reply's bytes: the fast path writes the usual replies, protobufjs everything else. */
export function encodeServerToAgent(fields: ServerToAgentFields): Uint8Array {
  return writeServerToAgent(fields) ?? ServerToAgentType.encode(ServerToAgentType.create(fields)).finish();
}

/** For tools and specs that play the agent's part. */
export function encodeAgentToServer(fields: Record<string, unknown>): Uint8Array {
  return AgentToServerType.encode(AgentToServerType.fromObject(fields)).finish();
}

export function decodeServerToAgent(bytes: Uint8Array): ServerToAgentFields & Record<string, unknown> {
  return ServerToAgentType.toObject(ServerToAgentType.decode(bytes), {
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
