// The configuration schema (SPEC "Configuration"): every key, its default and its rule, checked by joi
// with every problem reported at once. Durations arrive as Go-style text and leave as milliseconds;
// byte sizes as integers or "16MiB" and leave as bytes.

import Joi from 'joi';
import { parseByteSize } from './byteSize.ts';
import { parseDuration } from '../../projections/units/duration.ts';
import { parseSelector } from '../../projections/filter/selector.ts';
import { readAgentCa } from '../tls/agentCaFiles.ts';
import { tlsFileProblems, type TlsFiles } from '../tls/tlsMaterial.ts';
import { agentsSchema, type AgentsConfig } from './agentsSchema.ts';
import { signInKeys, type SignInConfig } from './signInSchema.ts';
import type { OwnTelemetryEntry } from '../../projections/ownTelemetry/ownTelemetry.ts';

const duration = (fallback: string, { allowZero = false } = {}) =>
  Joi.any()
    .custom((value: unknown, helpers) => {
      const ms = typeof value === 'string' ? parseDuration(value.trim()) : undefined;
      if (ms === undefined)
        return helpers.message({ custom: `{{#label}} must be a duration such as 500ms, 30s, 1m30s or 168h` });
      if (ms <= 0 && !allowZero) return helpers.message({ custom: '{{#label}} must be greater than zero' });
      return ms;
    })
    .default(parseDuration(fallback));

const byteSize = (fallback: number) =>
  Joi.any()
    .custom((value: unknown, helpers) => {
      const n = typeof value === 'string' || typeof value === 'number' ? parseByteSize(value) : undefined;
      if (n === undefined || n <= 0)
        return helpers.message({ custom: '{{#label}} must be a positive size such as 16777216 or 16MiB' });
      return n;
    })
    .default(fallback);

/** host:port, :port, [v6]:port. Port 0 asks the OS for a free port (tests). */
const address = (fallback: string) =>
  Joi.string()
    .pattern(/^(?:[A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, 'host:port')
    .custom((value: string, helpers) => {
      const port = Number(value.slice(value.lastIndexOf(':') + 1));
      return port <= 65535 ? value : helpers.message({ custom: '{{#label}} has a port above 65535' });
    })
    .default(fallback);

const tls = Joi.object({
  cert_file: Joi.string().allow('').default(''),
  key_file: Joi.string().allow('').default(''),
  client_ca_file: Joi.string().allow('').default(''),
}).default();

const roleMapping = Joi.object({
  match: Joi.string().valid('exact', 'prefix').required(),
  spiffe_id: Joi.string()
    .pattern(/^spiffe:\/\//, 'spiffe://')
    .required(),
  role: Joi.string().valid('viewer', 'admin').required(),
});

/** A named token, configured by its SHA-256 only (the token itself never is). */
const hashedToken = {
  name: Joi.string().min(1).required(),
  sha256: Joi.string()
    .pattern(/^[0-9a-fA-F]{64}$/, 'hex SHA-256')
    .lowercase()
    .required(),
};

/** An API token: requests with `Authorization: Bearer TOKEN` whose SHA-256 is `sha256` get `role`. */
const apiToken = Joi.object({ ...hashedToken, role: Joi.string().valid('viewer', 'admin').required() });

/**
 * An enrollment token: OpAMP requests must carry `Authorization: Bearer TOKEN` with this SHA-256. Its
 * selector (the fleet matcher syntax) bounds the descriptions an agent using it may send.
 */
/** A selector in the fleet matcher syntax with at least one matcher. */
const selector = Joi.string()
  .min(1)
  .custom((value: string, helpers) => {
    const parsed = parseSelector(value);
    if (!parsed.ok) return helpers.message({ custom: `{{#label}}: ${parsed.error.replace(/[{}]/g, '')}` });
    if (parsed.value.filter === null) return helpers.message({ custom: '{{#label}} has no matcher' });
    return value;
  });

/** `gateway`: an agent using it may declare a gateway (docs/security.md "Gateways"). */
const enrollmentToken = Joi.object({ ...hashedToken, selector, gateway: Joi.boolean().default(false) });

/** An OTLP/HTTP destination an agent sends one signal of its own telemetry to. */
const telemetryDestination = Joi.object({
  endpoint: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2048)
    .required(),
  headers: Joi.object()
    .pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, Joi.string().max(8192).allow(''))
    .max(64),
});

/** own_telemetry: where agents whose selector matches send their own metrics, logs and traces. */
const ownTelemetryEntry = Joi.object({
  selector: selector.required(),
  metrics: telemetryDestination,
  logs: telemetryDestination,
  traces: telemetryDestination,
}).or('metrics', 'logs', 'traces');

export const configSchema = Joi.object({
  listeners: Joi.object({
    opamp: address(':4320'),
    ui: address(':8080'),
    telemetry: address(':9090'),
    // From accept (TLS handshake included) to a complete request's headers, on every listener.
    header_timeout: duration('10s'),
  }).default(),
  opamp_tls: tls,
  ui_tls: tls,
  telemetry_tls: tls,
  auth: Joi.object({
    role_mapping: Joi.array().items(roleMapping).default([]),
    default_role: Joi.string().valid('none', 'viewer', 'admin').default('none'),
    api_tokens: Joi.array().items(apiToken).unique('name').unique('sha256').default([]),
    allow_unauthenticated_writes: Joi.boolean().default(false),
    anonymous_reads: Joi.boolean().default(true),
    ...signInKeys(duration),
  }).default(),
  remote_config: Joi.object({
    dir: Joi.string().allow('').default(''),
  }).default(),
  log: Joi.object({
    level: Joi.string().valid('debug', 'info', 'warn', 'error').default('info'),
    format: Joi.string().valid('text', 'json').default('text'),
  }).default(),
  fleet: Joi.object({
    heartbeat_interval: duration('30s'),
    stale_missed_heartbeats: Joi.number().integer().min(1).default(3),
    required_attributes: Joi.array().items(Joi.string().min(1)).unique().default([]),
    soft_delete_duration: duration('168h'),
    // Far above SPEC's 100,000 agents; a registry of this many fits in a few GiB.
    max_agents: Joi.number().integer().min(1).default(250_000),
  }).default(),
  shutdown: Joi.object({
    drain_delay: duration('5s', { allowZero: true }),
    // How long sockets may take to answer the going-away close frame before they are cut.
    close_timeout: duration('2s'),
  }).default(),
  metrics: Joi.object({ per_agent_series_limit: Joi.number().integer().min(0).default(1000) }).default(),
  ui: Joi.object({
    poll_interval: duration('5s'),
    public_url: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .allow('')
      .default(''),
    allowed_hosts: Joi.array().items(Joi.string().min(1).lowercase()).unique().default([]),
    allowed_origins: Joi.array()
      .items(
        Joi.string()
          .uri({ scheme: ['http', 'https'] })
          .lowercase(),
      )
      .unique()
      .default([]),
  }).default(),
  debug: Joi.object({
    pprof_enabled: Joi.boolean().default(false),
    record_file: Joi.string().allow('').default(''),
  }).default(),
  opamp: Joi.object({
    max_message_bytes: byteSize(16 * 1024 * 1024),
    max_connections: Joi.number().integer().min(1).default(50_000),
    // A plain-HTTP request with no credential: its body's bound, and how long it may take to arrive.
    max_unauthenticated_message_bytes: byteSize(1024 * 1024),
    unauthenticated_body_timeout: duration('5s'),
  }).default(),
  agents: agentsSchema(duration, byteSize).keys({
    tokens: Joi.array().items(enrollmentToken).unique('name').unique('sha256').default([]),
    // OpAMP client certificates (their SPIFFE id, else subject) that may declare a gateway.
    gateway_certificates: Joi.array().items(Joi.string().min(1)).unique().default([]),
    max_per_gateway: Joi.number().integer().min(1).default(10_000),
  }),
  own_telemetry: Joi.array().items(ownTelemetryEntry).max(256).default([]),
  database: Joi.object({
    host: Joi.string().allow('').default(''),
    port: Joi.number().integer().min(1).max(65535).default(5432),
    user: Joi.string().allow('').default(''),
    password: Joi.string().allow('').default(''),
    dbname: Joi.string().allow('').default(''),
    sslmode: Joi.string().valid('disable', 'require', 'verify-ca', 'verify-full').default('disable'),
    pool_max: Joi.number().integer().min(2).default(10),
    // Flush chunks written at once (agentWriter.ts writeConcurrency; docs/persistence.md "Connections").
    write_concurrency: Joi.number().integer().min(1).default(2),
  }).default(),
})
  .default()
  .custom((value: Config, helpers) => {
    for (const name of ['opamp_tls', 'ui_tls', 'telemetry_tls'] as const) {
      const t = value[name];
      if ((t.cert_file === '') !== (t.key_file === ''))
        return helpers.message({ custom: `${name}.cert_file and ${name}.key_file must be set together` });
      if (t.client_ca_file !== '' && t.cert_file === '')
        return helpers.message({
          custom: `${name}.client_ca_file requires ${name}.cert_file and ${name}.key_file`,
        });
    }
    // Every TLS file exists and parses, or startup stops naming the key (src/io/tls/tlsMaterial.ts).
    const tlsProblems = tlsFileProblems(value);
    // The agent CA is a CA certificate with its own key, or startup stops (src/io/tls/agentCaFiles.ts).
    const problems = [...tlsProblems, ...readAgentCa(value.agents.ca).problems];
    if (problems.length > 0) return helpers.message({ custom: problems.join('; ').replace(/[{}]/g, '') });
    return value;
  });

export type { TlsFiles };
export type { OwnTelemetryEntry };
export type { OidcConfig, OidcRoleMapping, SignInConfig } from './signInSchema.ts';

export type Role = 'viewer' | 'admin';

export interface ApiToken {
  readonly name: string;
  /** Lowercase hex SHA-256 of the token; the token itself is never configured. */
  readonly sha256: string;
  readonly role: Role;
}

export interface EnrollmentToken {
  readonly name: string;
  /** Lowercase hex SHA-256 of the token; the token itself is never configured. */
  readonly sha256: string;
  /** What an agent using the token may claim to be (fleet matcher syntax); anything when absent. */
  readonly selector?: string;
  /** An agent using it may declare a gateway (and so may a certificate issued to it). */
  readonly gateway?: boolean;
}

export interface RoleMappingEntry {
  readonly match: 'exact' | 'prefix';
  readonly spiffe_id: string;
  readonly role: Role;
}

/** The validated configuration. Durations are milliseconds, sizes bytes. */
export interface Config {
  readonly listeners: {
    readonly opamp: string;
    readonly ui: string;
    readonly telemetry: string;
    /** From accept (TLS handshake included) to the first complete request's headers. */
    readonly header_timeout: number;
  };
  readonly opamp_tls: TlsFiles;
  readonly ui_tls: TlsFiles;
  readonly telemetry_tls: TlsFiles;
  readonly auth: SignInConfig & {
    readonly role_mapping: readonly RoleMappingEntry[];
    readonly default_role: Role | 'none';
    readonly api_tokens: readonly ApiToken[];
    /** Lets requests without authentication write (configs, job actions). Off unless set. */
    readonly allow_unauthenticated_writes: boolean;
    /** Lets requests without authentication read (UI and API). On unless set to false. */
    readonly anonymous_reads: boolean;
  };
  /** Where remote configs come from when not from the database (docs/remote-config.md). */
  readonly remote_config: { readonly dir: string };
  readonly log: { readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly format: 'text' | 'json' };
  readonly fleet: {
    readonly heartbeat_interval: number;
    readonly stale_missed_heartbeats: number;
    readonly required_attributes: readonly string[];
    readonly soft_delete_duration: number;
    /** Agents the registry holds at most: a new agent past it is refused (Unavailable, 503). */
    readonly max_agents: number;
  };
  readonly shutdown: { readonly drain_delay: number; readonly close_timeout: number };
  readonly metrics: { readonly per_agent_series_limit: number };
  readonly ui: {
    readonly poll_interval: number;
    /** The address people reach the UI at (behind a proxy); empty: the listener's own. */
    readonly public_url: string;
    /** Host header values (`name` or `name:port`) the UI listener answers; empty: any. */
    readonly allowed_hosts: readonly string[];
    /** Origins (scheme://host[:port]) besides the listener's own that may send writes. */
    readonly allowed_origins: readonly string[];
  };
  readonly debug: { readonly pprof_enabled: boolean; readonly record_file: string };
  readonly opamp: {
    readonly max_message_bytes: number;
    readonly max_connections: number;
    /** The body bound of a plain-HTTP request that presented no credential (below max_message_bytes). */
    readonly max_unauthenticated_message_bytes: number;
    /** How long such a body may take to arrive after its headers. */
    readonly unauthenticated_body_timeout: number;
  };
  /**
   * How agents prove who they are, and what they may report (docs/security.md): no enrollment token
   * and no OpAMP client CA means agents are not authenticated.
   */
  readonly agents: AgentsConfig & {
    readonly tokens: readonly EnrollmentToken[];
    /** Identities (SPIFFE id, else subject) of OpAMP client certificates that may declare a gateway. */
    readonly gateway_certificates: readonly string[];
    /** Agents one accepted gateway connection may carry. */
    readonly max_per_gateway: number;
  };
  /**
   * Where agents send their own telemetry (docs/own-telemetry.md): per signal, the first entry whose
   * selector matches the agent and that names the signal.
   */
  readonly own_telemetry: readonly OwnTelemetryEntry[];
  readonly database: {
    readonly host: string;
    readonly port: number;
    readonly user: string;
    readonly password: string;
    readonly dbname: string;
    readonly sslmode: 'disable' | 'require' | 'verify-ca' | 'verify-full';
    readonly pool_max: number;
    readonly write_concurrency: number;
  };
}
