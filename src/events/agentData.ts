import type { ConnectionId } from './ids.ts';

// Plain data carried by events and held by projections. No protobuf classes, no bytes: hashes are
// lowercase hex, 64-bit values are bigint, times are Unix milliseconds (numbers) unless named *Nanos.

export type Transport = 'ws' | 'http';
export type Route = 'direct' | 'gateway';

/** Attribute map: key -> value rendered as plain text (SPEC: strings as they are, others as text). */
export type Attributes = Readonly<Record<string, string>>;

export interface AgentDescription {
  readonly identifying: Attributes;
  readonly nonIdentifying: Attributes;
}

export interface ComponentHealth {
  readonly healthy: boolean;
  /** Unix epoch nanoseconds; 0n when not running or not reported. */
  readonly startTimeNanos: bigint;
  readonly lastError: string;
  readonly status: string;
  readonly statusTimeNanos: bigint;
  readonly components: Readonly<Record<string, ComponentHealth>>;
}

export interface ConfigFile {
  readonly body: string;
  readonly contentType: string;
}

export type EffectiveConfig = Readonly<Record<string, ConfigFile>>;

export type PackageState = 'installed' | 'install_pending' | 'installing' | 'install_failed' | 'downloading';

export interface PackageStatus {
  readonly name: string;
  readonly agentHasVersion: string;
  readonly agentHasHash: string;
  readonly serverOfferedVersion: string;
  readonly serverOfferedHash: string;
  readonly status: PackageState;
  readonly errorMessage: string;
  readonly downloadPercent: number | null;
  readonly downloadBytesPerSecond: number | null;
}

export interface PackageStatuses {
  readonly packages: Readonly<Record<string, PackageStatus>>;
  readonly serverProvidedAllPackagesHash: string;
  readonly errorMessage: string;
}

/**
 * What the agent can run (AgentToServer.available_components): component kinds (`receivers`,
 * `processors`, `exporters`, `extensions`, `connectors` for a Collector) to the sorted type names of
 * each (`otlp`, `batch`, …). Empty `components` when the agent sent only its hash (the supervisor
 * does until the service asks with ReportAvailableComponents).
 */
export interface AvailableComponents {
  /** Lowercase hex. */
  readonly hash: string;
  readonly components: Readonly<Record<string, readonly string[]>>;
}

export type RemoteConfigState = 'unset' | 'applied' | 'applying' | 'failed';

/** What the agent says of the remote config it last received (AgentToServer.remote_config_status). */
export interface RemoteConfigStatus {
  /** last_remote_config_hash as lowercase hex; empty when the agent has none. */
  readonly hash: string;
  readonly status: RemoteConfigState;
  readonly errorMessage: string;
}

export type ConnectionSettingsState = RemoteConfigState;

/**
 * What the agent says of the connection settings it last received
 * (AgentToServer.connection_settings_status; OPAMP.md ConnectionSettingsStatus).
 */
export interface ConnectionSettingsStatus {
  /** last_connection_settings_hash as lowercase hex; empty when the agent has none. */
  readonly hash: string;
  readonly status: ConnectionSettingsState;
  readonly errorMessage: string;
}

/**
 * How an agent reaches the service. One object per WebSocket connection (shared by every agent on
 * it) or per HTTP request, so holding it costs an agent one pointer.
 */
export interface Session {
  readonly connectionId: ConnectionId;
  readonly transport: Transport;
  readonly viaGateway: boolean;
  readonly remoteAddr: string;
  /** Subject of the verified client certificate (OpAMP mTLS), else null. */
  readonly tlsSubject: string | null;
}
