// The OpAMP messages as protobufjs hands them back and takes them (wire data only: bytes, Longs,
// protobuf field names), so the slow decoding path and the encoders are typed. Nothing here is in
// domain terms; translation (wireToData.ts) makes the domain's data of them. They never leave src/io.

import type Long from 'long';

type Maybe<T> = T | null | undefined;
/**
 * A 64-bit field: protobufjs gives Long (number only if Long is missing, which it is not here); the
 * fast reader (protoReader.ts) reads bigint.
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
  connectionSettingsStatus?: Maybe<{
    lastConnectionSettingsHash: Uint8Array;
    status: number;
    errorMessage: string;
  }>;
  packageStatuses?: Maybe<{
    packages: Record<string, WirePackageStatus>;
    serverProvidedAllPackagesHash: Uint8Array;
    errorMessage: string;
  }>;
  availableComponents?: Maybe<{
    components?: Maybe<Record<string, WireComponentDetails>>;
    hash?: Maybe<Uint8Array>;
  }>;
  agentDisconnect?: Maybe<object>;
  customCapabilities?: Maybe<{ capabilities: string[] }>;
  customMessage?: Maybe<WireCustomMessage>;
  connectionSettingsRequest?: Maybe<{
    opamp?: Maybe<{ certificateRequest?: Maybe<{ csr?: Maybe<Uint8Array> }> }>;
  }>;
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
  /**
   * ConnectionSettingsOffers: the OpAMP connection with a certificate (certificateOffer.ts), where the
   * agent sends its own telemetry (ownTelemetryWire.ts), or both.
   */
  connectionSettings?: ConnectionSettingsOfferFields;
}

/** TelemetryConnectionSettings: destination_endpoint and headers only. */
export interface TelemetrySettingsFields {
  destinationEndpoint: string;
  headers?: { headers: { key: string; value: string }[] };
}

export interface ConnectionSettingsOfferFields {
  hash: Uint8Array;
  opamp?: {
    destinationEndpoint: string;
    /** TLSCertificate: PEM bytes; never a private key (the agent made its own). */
    certificate: { cert: Uint8Array; caCert: Uint8Array };
    heartbeatIntervalSeconds: number;
  };
  ownMetrics?: TelemetrySettingsFields;
  ownLogs?: TelemetrySettingsFields;
  ownTraces?: TelemetrySettingsFields;
}

export interface AgentRemoteConfigFields {
  config: { configMap: Record<string, { body: Uint8Array; contentType: string }> };
  configHash: Uint8Array;
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

/** ComponentDetails: metadata (ignored) and the components below this one. */
export interface WireComponentDetails {
  subComponentMap?: Maybe<Record<string, WireComponentDetails>>;
}
