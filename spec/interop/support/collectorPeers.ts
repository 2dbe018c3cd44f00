// The OpenTelemetry Collector as operators run it against the service: under the OpAMP supervisor
// (which owns the Collector process and applies remote config), or alone with its opamp extension
// (reports only). Each runs in a temp dir of its own, removed when it stops.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { peerBinary } from './peers.ts';
import { startPeer, type PeerProcess } from './peerProcess.ts';

export type Transport = 'ws' | 'http';

export interface RunningPeer {
  /** The instance uid it was told to use (canonical UUID, as the API shows it). */
  readonly uid: string;
  readonly process: PeerProcess;
  readonly dir: string;
  stop(): Promise<void>;
}

/** The service's OpAMP URL for a transport (`app.urls.opamp` is http:// or, with TLS, https://). */
export function opampEndpoint(opampUrl: string, transport: Transport): string {
  const url = new URL('/v1/opamp', opampUrl);
  if (transport === 'ws') url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** The Collector's TLS client settings (configtls): the service's CA, and a client certificate
 * when the service asks for one (opamp_tls.client_ca_file). Without it: plain text allowed. */
export interface PeerTls {
  readonly ca_file: string;
  readonly cert_file?: string;
  readonly key_file?: string;
}

const tlsOf = (tls: PeerTls | undefined) => tls ?? { insecure: true };

/** A Collector pipeline that binds no port: what runs before any remote config arrives. The
 * Collector's own metrics are off, or every Collector of a run would want the same :8888. */
export const baseCollectorConfig = {
  receivers: { nop: {} },
  exporters: { nop: {} },
  service: {
    telemetry: { metrics: { level: 'none' } },
    pipelines: { traces: { receivers: ['nop'], exporters: ['nop'] } },
  },
};

export interface SupervisorOptions {
  readonly transport: Transport;
  readonly opampUrl: string;
  /** Runs `otelcol validate` before applying a remote config, so a refused one fails with the
   * Collector's own error and the running Collector keeps its config. */
  readonly validateConfig?: boolean;
  readonly tls?: PeerTls;
  /** The instance uid to run as (a fresh one by default), for a config written before it starts. */
  readonly uid?: string;
  /** Sent on the upgrade and every request, e.g. `Authorization: Bearer TOKEN` (agents.tokens). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The Collector keeps its own metrics on (pulled from this free port until the service offers
   * own_metrics, then exported every second to the offered endpoint): the supervisor merges the
   * offered settings after the base config.
   */
  readonly ownMetricsPort?: number;
}

/** The base config with the Collector's own metrics on, served on `port` until an offer replaces the reader. */
function ownMetricsBase(port: number) {
  const reader = { pull: { exporter: { prometheus: { host: '127.0.0.1', port } } } };
  return {
    ...baseCollectorConfig,
    service: {
      ...baseCollectorConfig.service,
      telemetry: { metrics: { level: 'normal', readers: [reader] } },
    },
  };
}

export async function startSupervisor(ctx: Mocha.Context, options: SupervisorOptions): Promise<RunningPeer> {
  const supervisor = peerBinary(ctx, 'supervisor');
  const collector = peerBinary(ctx, 'collector');
  const dir = await mkdtemp(join(tmpdir(), 'svc-supervisor-'));
  const uid = options.uid ?? randomUUID();
  const own = options.ownMetricsPort;
  await writeFile(
    join(dir, 'base.yaml'),
    dump(own === undefined ? baseCollectorConfig : ownMetricsBase(own)),
  );
  const config = {
    server: {
      endpoint: opampEndpoint(options.opampUrl, options.transport),
      tls: tlsOf(options.tls),
      ...(options.headers && { headers: options.headers }),
    },
    capabilities: {
      accepts_remote_config: true,
      reports_remote_config: true,
      reports_effective_config: true,
      reports_health: true,
      accepts_restart_command: true,
      reports_available_components: true,
      reports_own_metrics: true,
      reports_heartbeat: true,
    },
    agent: {
      executable: collector,
      instance_id: uid,
      // The offered own-telemetry settings after the base config, so that they win.
      config_files: [join(dir, 'base.yaml'), ...(own === undefined ? [] : ['$OWN_TELEMETRY_CONFIG'])],
      ...(own === undefined ? {} : { env: { OTEL_METRIC_EXPORT_INTERVAL: '1000' } }),
      validate_config: options.validateConfig ?? false,
      description: {
        non_identifying_attributes: { 'deployment.environment': 'interop', 'peer.kind': 'supervisor' },
      },
    },
    storage: { directory: join(dir, 'storage') },
    telemetry: { logs: { level: 'debug' } },
  };
  await writeFile(join(dir, 'supervisor.yaml'), dump(config));
  const process = startPeer(supervisor, ['--config', join(dir, 'supervisor.yaml')], dir);
  return running(uid, process, dir);
}

export interface ExtensionOptions {
  readonly transport: Transport;
  readonly opampUrl: string;
  readonly tls?: PeerTls;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A Collector without a supervisor, reporting through its opamp extension. */
export async function startCollectorWithExtension(
  ctx: Mocha.Context,
  options: ExtensionOptions,
): Promise<RunningPeer> {
  const collector = peerBinary(ctx, 'collector');
  const dir = await mkdtemp(join(tmpdir(), 'svc-otelcol-'));
  const uid = randomUUID();
  const common = {
    endpoint: opampEndpoint(options.opampUrl, options.transport),
    tls: tlsOf(options.tls),
    ...(options.headers && { headers: options.headers }),
  };
  const server =
    options.transport === 'ws' ? { ws: common } : { http: { ...common, polling_interval: '1s' } };
  const config = {
    ...baseCollectorConfig,
    extensions: {
      opamp: {
        instance_uid: uid,
        server,
        capabilities: {
          reports_effective_config: true,
          reports_health: true,
          reports_available_components: true,
        },
      },
    },
    service: { ...baseCollectorConfig.service, extensions: ['opamp'] },
  };
  await writeFile(join(dir, 'otelcol.yaml'), dump(config));
  const process = startPeer(collector, ['--config', join(dir, 'otelcol.yaml')], dir);
  return running(uid, process, dir);
}

function running(uid: string, process: PeerProcess, dir: string): RunningPeer {
  return {
    uid,
    process,
    dir,
    stop: async () => {
      await process.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
