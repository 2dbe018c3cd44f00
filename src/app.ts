// The composition root: config, bus, projections, handler and the three listeners. Tests start it
// in-process (port 0 addresses); main.ts starts it for real. No module-level singletons.

import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { createEventBus, type EventBus } from './events/bus.ts';
import { readBuildInfo } from './io/buildInfo.ts';
import type { Config } from './io/config/schema.ts';
import { baseUrl, closeServer, createPlainServer, createTlsServer, listen } from './io/listen.ts';
import { createEventLog } from './io/eventLog.ts';
import type { Logger } from './io/logger.ts';
import { createOpampHandler } from './io/opamp/handler.ts';
import { createOpampServer } from './io/opamp/opampServer.ts';
import { createRecorder, type Recorder } from './io/recorder/recorder.ts';
import { recordingHeaderOf } from './io/recorder/recordingHeader.ts';
import { loadTlsMaterial } from './io/tls/loadTls.ts';
import { serverTlsOptions } from './io/tls/serverOptions.ts';
import type { ListenerName } from './io/tls/tlsMaterial.ts';
import { createChangeTracker, type ChangeTracker } from './projections/changeTracker/changeTracker.ts';
import {
  createComplianceCounters,
  type ComplianceCountersProjection,
} from './projections/compliance/complianceCounters.ts';
import { createLivenessSweeper } from './projections/liveness/livenessSweeper.ts';
import { livenessThresholds, type LivenessThresholds } from './projections/liveness/sweep.ts';
import { createRegistryProjection, type Registry } from './projections/registry/registryProjection.ts';
import { createPersistence, type Persistence } from './persistence/persistence.ts';
import { createObservability, type Metrics } from './telemetry/telemetry.ts';
import { registerPersistenceMetrics } from './telemetry/persistenceMetrics.ts';
import { createTelemetryApp } from './telemetry/telemetryApp.ts';
import { createFleetReader } from './web/read/fleetReader.ts';
import { createTelemetryAuth, createUiAuth } from './web/auth.ts';
import { createUiApp } from './web/uiApp.ts';

export interface AppDeps {
  readonly logger: Logger;
  /** Time and timers; virtual in specs. Defaults to RxJS's asyncScheduler (wall clock). */
  readonly scheduler?: SchedulerLike;
}

export interface App {
  readonly config: Config;
  readonly bus: EventBus;
  readonly registry: Registry;
  readonly compliance: ComplianceCountersProjection;
  readonly changes: ChangeTracker;
  readonly thresholds: LivenessThresholds;
  /** The server and fleet Prometheus registries and the API request observer (docs/observability.md). */
  readonly metrics: Metrics;
  /** Base URLs of the bound listeners, known after start(). */
  readonly urls: { opamp: string; ui: string; telemetry: string };
  start(): Promise<void>;
  /** Graceful shutdown: not ready, refuse new OpAMP connections, drain delay, going-away close. */
  stop(): Promise<void>;
}

export function createApp(config: Config, deps: AppDeps): App {
  const { logger } = deps;
  const scheduler = deps.scheduler ?? asyncScheduler;
  const onError = (projection: string, error: unknown) =>
    logger.error({ err: error, projection }, 'projection failed');

  const bus = createEventBus();
  const registry = createRegistryProjection(bus.events$, onError);
  const compliance = createComplianceCounters(bus.events$, onError);
  const changes = createChangeTracker(bus.events$);
  const thresholds = livenessThresholds(
    config.fleet.heartbeat_interval,
    config.fleet.stale_missed_heartbeats,
  );
  // Throws ConfigError naming the bad *_tls key (the schema already checked; files may have changed).
  const tls = loadTlsMaterial(config);

  const build = readBuildInfo(process.env);
  const observability = createObservability({
    config,
    build,
    events$: bus.events$,
    registry,
    compliance,
    logger,
    onError,
  });
  const observer = observability.protocolObserver;
  const eventLog = createEventLog(bus.events$, logger);
  const handler = createOpampHandler({
    bus,
    registry,
    now: () => scheduler.now(),
    requiredAttributes: config.fleet.required_attributes,
    observer,
    // Traffic recording (debug.record_file): the recorder exists only between start() and stop().
    onInbound: (connection, payload, at) => recorder?.message(connection, payload, at),
    onClosed: (connection, at) => recorder?.connectionClosed(connection, at),
  });
  const opamp = createOpampServer(handler, observer, {
    maxMessageBytes: config.opamp.max_message_bytes,
    onError: (error) => logger.error({ err: error }, 'opamp request failed'),
    maxConnections: config.opamp.max_connections,
    idleTimeoutMs: thresholds.evictAfterMs,
    scheduler,
    onRefused: (reason) => logger.warn({ reason }, 'opamp connection refused'),
  });
  const authOptions = (listener: ListenerName) => ({
    enabled: tls[listener]?.ca !== undefined,
    mapping: config.auth.role_mapping,
    defaultRole: config.auth.default_role,
    onDenied: (path: string, reason: string) => logger.debug({ listener, path, reason }, 'forbidden'),
  });

  let ready = false;
  let draining = false;
  const startedAt = scheduler.now();
  // SPEC durability rule 1: with database.host empty nothing of persistence is created.
  const persistence: Persistence | undefined =
    config.database.host === ''
      ? undefined
      : createPersistence({
          config,
          logger,
          scheduler,
          registry,
          events$: bus.events$,
          windows$: changes.windows$,
          disconnectAfterMs: thresholds.disconnectAfterMs,
          registerMetrics: (m) =>
            registerPersistenceMetrics({
              server: observability.metrics.server,
              fleet: observability.metrics.fleet,
              ...m,
            }),
          countEvictions: observability.metrics.countEvictionsExternally(),
        });
  const reader = createFleetReader({
    registry,
    logger,
    store: persistence?.reader,
    onStoreFallback: persistence && ((surface) => persistence.metrics.storeFallbackError(surface)),
  });
  const ui = createUiApp({
    registry,
    logger,
    reader,
    api: {
      build,
      now: () => scheduler.now(),
      startedAt,
      observeRequest: observability.metrics.observeRequest,
      jobStore: persistence?.jobs,
    },
    jobsUi: persistence?.jobsUi,
    pollIntervalMs: config.ui.poll_interval,
    auth: createUiAuth(authOptions('ui')),
  });
  const telemetry = createTelemetryApp({
    isReady: () => ready,
    isDraining: () => draining,
    mount: observability.mount,
    auth: createTelemetryAuth(authOptions('telemetry')),
  });

  const servers: { opamp?: Server; ui?: Server; telemetry?: Server } = {};
  const urls = { opamp: '', ui: '', telemetry: '' };
  let sweeper: ReturnType<typeof createLivenessSweeper> | undefined;
  let recorder: Recorder | undefined;

  async function start(): Promise<void> {
    if (config.debug.record_file !== '') {
      const header = recordingHeaderOf(config, scheduler.now());
      recorder = await createRecorder({ file: config.debug.record_file, header, logger });
    }
    const serve = (listener: ListenerName, handler: Parameters<typeof createPlainServer>[0]) => {
      const material = tls[listener];
      return material
        ? createTlsServer(handler, serverTlsOptions(listener, material))
        : createPlainServer(handler);
    };
    const opampServer = serve('opamp', (req, res) => opamp.onRequest(req, res));
    opampServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      opamp.onUpgrade(req, socket, head),
    );
    await observability.start();
    // Migrations (under the advisory lock), purge job and session refresh before agents arrive.
    await persistence?.start();
    servers.opamp = await listen(opampServer, config.listeners.opamp);
    const [uiHandler, telemetryHandler] = [ui.callback(), telemetry.callback()];
    servers.ui = await listen(
      serve('ui', (req, res) => void uiHandler(req, res)),
      config.listeners.ui,
    );
    servers.telemetry = await listen(
      serve('telemetry', (req, res) => void telemetryHandler(req, res)),
      config.listeners.telemetry,
    );
    const scheme = (listener: ListenerName) => (tls[listener] ? 'https' : 'http');
    urls.opamp = baseUrl(servers.opamp, scheme('opamp'));
    urls.ui = baseUrl(servers.ui, scheme('ui'));
    urls.telemetry = baseUrl(servers.telemetry, scheme('telemetry'));
    sweeper = createLivenessSweeper({ bus, registry, thresholds, scheduler, onError });
    ready = true;
    logger.info(urls, 'listening');
  }

  async function stop(): Promise<void> {
    draining = true;
    opamp.startDraining();
    logger.info({ drainDelayMs: config.shutdown.drain_delay }, 'draining');
    await new Promise((resolve) => setTimeout(resolve, config.shutdown.drain_delay));
    opamp.ws.closeAll(1001, 'server shutting down');
    sweeper?.stop();
    await observability.stop();
    await Promise.all(Object.values(servers).map((s) => closeServer(s)));
    await recorder?.close();
    // The bus completing makes the change tracker deliver its final window; then the last flush.
    bus.close();
    await persistence?.stop();
    registry.stop();
    compliance.stop();
    changes.stop();
    eventLog.stop();
    logger.info('stopped');
  }

  return {
    config,
    bus,
    registry,
    compliance,
    changes,
    thresholds,
    metrics: observability.metrics,
    urls,
    start,
    stop,
  };
}
