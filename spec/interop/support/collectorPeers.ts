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
}

export async function startSupervisor(ctx: Mocha.Context, options: SupervisorOptions): Promise<RunningPeer> {
  const supervisor = peerBinary(ctx, 'supervisor');
  const collector = peerBinary(ctx, 'collector');
  const dir = await mkdtemp(join(tmpdir(), 'svc-supervisor-'));
  const uid = options.uid ?? randomUUID();
  await writeFile(join(dir, 'base.yaml'), dump(baseCollectorConfig));
  const config = {
    server: { endpoint: opampEndpoint(options.opampUrl, options.transport), tls: tlsOf(options.tls) },
    capabilities: {
      accepts_remote_config: true,
      reports_remote_config: true,
      reports_effective_config: true,
      reports_health: true,
      accepts_restart_command: true,
      reports_available_components: true,
      reports_heartbeat: true,
    },
    agent: {
      executable: collector,
      instance_id: uid,
      config_files: [join(dir, 'base.yaml')],
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
}

/** A Collector without a supervisor, reporting through its opamp extension. */
export async function startCollectorWithExtension(
  ctx: Mocha.Context,
  options: ExtensionOptions,
): Promise<RunningPeer> {
  const collector = peerBinary(ctx, 'collector');
  const dir = await mkdtemp(join(tmpdir(), 'svc-otelcol-'));
  const uid = randomUUID();
  const endpoint = opampEndpoint(options.opampUrl, options.transport);
  const server =
    options.transport === 'ws'
      ? { ws: { endpoint, tls: tlsOf(options.tls) } }
      : { http: { endpoint, tls: tlsOf(options.tls), polling_interval: '1s' } };
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
