// Decoded protobuf → plain event data (fromWire: a whole message, as protobufjs decoded it). Attribute values become plain text (strings as they are;
// 42, true, 1.5; arrays and maps as JSON; bytes as base64), never protobuf debug text. Hashes become
// lowercase hex. Nesting is cut at a fixed depth so hostile input cannot exhaust the stack.

import type {
  AgentDescription,
  Attributes,
  AvailableComponents,
  ComponentHealth,
  ConnectionSettingsStatus,
  EffectiveConfig,
  PackageState,
  PackageStatuses,
  RemoteConfigState,
  RemoteConfigStatus,
} from '../../events/agentData.ts';
import type { DecodedAgentToServer } from './decodedAgentToServer.ts';
import { noComponents } from './healthReader.ts';
import type { SharedText } from './sharedText.ts';
import {
  toBigInt,
  toBigUint,
  type WireAgentToServer,
  type WireAnyValue,
  type WireComponentHealth,
  type WireKeyValue,
} from './wireTypes.ts';

const maxDepth = 32;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function toJson(v: WireAnyValue | null | undefined, depth: number): Json {
  if (v === null || v === undefined || depth > maxDepth) return null;
  switch (v.value) {
    case 'stringValue':
      return v.stringValue ?? '';
    case 'boolValue':
      return v.boolValue ?? false;
    case 'intValue': {
      const n = toBigInt(v.intValue);
      return Number.isSafeInteger(Number(n)) ? Number(n) : n.toString();
    }
    case 'doubleValue':
      return Number.isFinite(v.doubleValue) ? (v.doubleValue ?? 0) : String(v.doubleValue);
    case 'arrayValue':
      return (v.arrayValue?.values ?? []).map((x) => toJson(x, depth + 1));
    case 'kvlistValue': {
      const out: Record<string, Json> = {};
      for (const kv of v.kvlistValue?.values ?? []) out[kv.key] = toJson(kv.value, depth + 1);
      return out;
    }
    case 'bytesValue':
      return Buffer.from(v.bytesValue ?? []).toString('base64');
    default:
      return null;
  }
}

/** Plain-text rendering of an AnyValue. A null AnyValue renders as the empty string. */
export function anyValueText(v: WireAnyValue | null | undefined): string {
  if (v === null || v === undefined) return '';
  switch (v.value) {
    case 'stringValue':
      return v.stringValue ?? '';
    case 'boolValue':
      return v.boolValue ? 'true' : 'false';
    case 'intValue':
      return toBigInt(v.intValue).toString();
    case 'doubleValue':
      return String(v.doubleValue ?? 0);
    case 'bytesValue':
      return Buffer.from(v.bytesValue ?? []).toString('base64');
    case 'arrayValue':
    case 'kvlistValue':
      return JSON.stringify(toJson(v, 0));
    default:
      return '';
  }
}

export function toAttributes(list: readonly WireKeyValue[] | null | undefined): Attributes {
  const out: Record<string, string> = {};
  for (const kv of list ?? []) out[kv.key] = anyValueText(kv.value);
  return out;
}

export function toDescription(d: NonNullable<WireAgentToServer['agentDescription']>): AgentDescription {
  return {
    identifying: toAttributes(d.identifyingAttributes),
    nonIdentifying: toAttributes(d.nonIdentifyingAttributes),
  };
}

export function toHealth(h: WireComponentHealth, depth = 0): ComponentHealth {
  let components = noComponents;
  const map = h.componentHealthMap;
  if (depth < maxDepth && map != null) {
    for (const name in map) {
      if (!Object.hasOwn(map, name)) continue;
      if (components === noComponents) components = {};
      (components as Record<string, ComponentHealth>)[name] = toHealth(map[name]!, depth + 1);
    }
  }
  return {
    healthy: h.healthy === true,
    startTimeNanos: toBigUint(h.startTimeUnixNano),
    lastError: h.lastError ?? '',
    status: h.status ?? '',
    statusTimeNanos: toBigUint(h.statusTimeUnixNano),
    components,
  };
}

/** Bodies are shared across agents that report the same one, through the decoder's `bodies`. */
export function toEffectiveConfig(
  e: NonNullable<WireAgentToServer['effectiveConfig']>,
  bodies: SharedText,
): EffectiveConfig {
  const out: Record<string, { body: string; contentType: string }> = {};
  const files = e.configMap?.configMap ?? {};
  for (const name in files) {
    if (!Object.hasOwn(files, name)) continue;
    const file = files[name]!;
    // protobufjs leaves an absent bytes field as its default, a plain empty array, not a Uint8Array.
    const body = file.body instanceof Uint8Array ? file.body : new Uint8Array();
    out[name] = { body: bodies.shareUtf8(body), contentType: file.contentType ?? '' };
  }
  return out;
}

const packageStates: readonly PackageState[] = [
  'installed',
  'install_pending',
  'installing',
  'install_failed',
  'downloading',
];

const hexOf = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? []).toString('hex');

export function toPackageStatuses(p: NonNullable<WireAgentToServer['packageStatuses']>): PackageStatuses {
  const packages: Record<string, PackageStatuses['packages'][string]> = {};
  for (const [name, s] of Object.entries(p.packages ?? {})) {
    packages[name] = {
      name: s.name || name,
      agentHasVersion: s.agentHasVersion ?? '',
      agentHasHash: hexOf(s.agentHasHash),
      serverOfferedVersion: s.serverOfferedVersion ?? '',
      serverOfferedHash: hexOf(s.serverOfferedHash),
      status: packageStates[s.status] ?? 'installed',
      errorMessage: s.errorMessage ?? '',
      downloadPercent: s.downloadDetails ? s.downloadDetails.downloadPercent : null,
      downloadBytesPerSecond: s.downloadDetails ? s.downloadDetails.downloadBytesPerSecond : null,
    };
  }
  return {
    packages,
    serverProvidedAllPackagesHash: hexOf(p.serverProvidedAllPackagesHash),
    errorMessage: p.errorMessage ?? '',
  };
}

const remoteConfigStates: readonly RemoteConfigState[] = ['unset', 'applied', 'applying', 'failed'];

/** RemoteConfigStatus and ConnectionSettingsStatus share their enum: UNSET, APPLIED, APPLYING, FAILED. */
const hashStatus = (
  hash: Uint8Array | null | undefined,
  status: number,
  errorMessage: string | null | undefined,
) => ({
  hash: hexOf(hash),
  status: remoteConfigStates[status] ?? 'unset',
  errorMessage: errorMessage ?? '',
});

export const toRemoteConfigStatus = (
  r: NonNullable<WireAgentToServer['remoteConfigStatus']>,
): RemoteConfigStatus => hashStatus(r.lastRemoteConfigHash, r.status, r.errorMessage);

export const toConnectionSettingsStatus = (
  c: NonNullable<WireAgentToServer['connectionSettingsStatus']>,
): ConnectionSettingsStatus => hashStatus(c.lastConnectionSettingsHash, c.status, c.errorMessage);

function certificateRequestOf(msg: WireAgentToServer): Uint8Array | undefined {
  const request = msg.connectionSettingsRequest?.opamp?.certificateRequest;
  return request == null ? undefined : (request.csr ?? new Uint8Array());
}

/** Kinds an agent may report, and types per kind: more is cut (reportLimits.ts bounds the message). */
const maxComponentKinds = 64;
const maxComponentsPerKind = 4096;

/** Two levels, as the Collector reports them: kind (`receivers`) → type (`otlp`); metadata dropped. */
export function toAvailableComponents(
  a: NonNullable<WireAgentToServer['availableComponents']>,
): AvailableComponents {
  const components: Record<string, readonly string[]> = {};
  for (const kind of Object.keys(a.components ?? {})
    .sort()
    .slice(0, maxComponentKinds)) {
    const types = Object.keys(a.components?.[kind]?.subComponentMap ?? {});
    components[kind] = types.sort().slice(0, maxComponentsPerKind);
  }
  return { hash: Buffer.from(a.hash ?? []).toString('hex'), components };
}

/** protobufjs's AgentToServer in the decoder's one shape (decodedAgentToServer.ts). */
export function fromWire(msg: WireAgentToServer, bodies: SharedText): DecodedAgentToServer {
  const cm = msg.customMessage;
  return {
    instanceUid: msg.instanceUid ?? new Uint8Array(),
    flags: toBigUint(msg.flags),
    sequenceNum: toBigUint(msg.sequenceNum),
    capabilities: toBigUint(msg.capabilities),
    description: msg.agentDescription != null ? toDescription(msg.agentDescription) : undefined,
    health: msg.health != null ? toHealth(msg.health) : undefined,
    effectiveConfig: msg.effectiveConfig != null ? toEffectiveConfig(msg.effectiveConfig, bodies) : undefined,
    packageStatuses: msg.packageStatuses != null ? toPackageStatuses(msg.packageStatuses) : undefined,
    availableComponents:
      msg.availableComponents != null ? toAvailableComponents(msg.availableComponents) : undefined,
    remoteConfigStatus:
      msg.remoteConfigStatus != null ? toRemoteConfigStatus(msg.remoteConfigStatus) : undefined,
    connectionSettingsStatus:
      msg.connectionSettingsStatus != null
        ? toConnectionSettingsStatus(msg.connectionSettingsStatus)
        : undefined,
    disconnect: msg.agentDisconnect != null,
    customMessage:
      cm != null
        ? { capability: cm.capability ?? '', type: cm.type ?? '', data: cm.data ?? new Uint8Array() }
        : undefined,
    certificateRequest: certificateRequestOf(msg),
  };
}
