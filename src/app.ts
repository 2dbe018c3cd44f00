// The composition root of the service: the fleet core (src/fleetCore.ts), telemetry, persistence
// when database.host is set, the web UI and API, the three listeners and the lifecycle. Tests start
// it in-process (port 0 addresses); main.ts starts it for real. No module-level singletons.

import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import type { EventBus } from './events/bus.ts';
import { createFleetCore } from './fleetCore.ts';
import { readBuildInfo } from './io/buildInfo.ts';
import type { Config } from './io/config/schema.ts';
import { baseUrl, closeServer, createPlainServer, createTlsServer, listen } from './io/listen.ts';
import { createEventLog } from './io/eventLog.ts';
import type { Logger } from './io/logger.ts';
import { createOpampServer } from './io/opamp/opampServer.ts';
import { createRecorder, type Recorder } from './io/recorder/recorder.ts';
import { recordingHeaderOf } from './io/recorder/recordingHeader.ts';
import { loadTlsMaterial } from './io/tls/loadTls.ts';
import { serverTlsOptions } from './io/tls/serverOptions.ts';
import type { ListenerName } from './io/tls/tlsMaterial.ts';
import type { ComplianceCountersProjection } from './projections/compliance/complianceCounters.ts';
import type { LivenessThresholds } from './projections/liveness/sweep.ts';
import type { Registry } from './projections/registry/registryProjection.ts';
import { createDeferredPersistence, type DeferredPersistence } from './persistence/deferredPersistence.ts';
import type { PersistenceMetricsSink } from './telemetry/persistenceMetrics.ts';
import { createTelemetry, type Telemetry } from './telemetry/telemetry.ts';
import { createTelemetryAuth } from './telemetry/telemetryAuth.ts';
import { createFleetReader } from './web/read/fleetReader.ts';
import { createUiAuth } from './web/auth.ts';
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
  readonly thresholds: LivenessThresholds;
  /** Telemetry: the server and fleet Prometheus registries among others (docs/observability.md). */
  readonly telemetry: Telemetry;
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
  // SPEC durability rule 1: with database.host empty nothing of persistence is created.
  const persistenceOn = config.database.host !== '';

  let recorder: Recorder | undefined;
  const core = createFleetCore({
    scheduler,
    fleet: {
      heartbeatIntervalMs: config.fleet.heartbeat_interval,
      staleMissedHeartbeats: config.fleet.stale_missed_heartbeats,
      requiredAttributes: config.fleet.required_attributes,
    },
    // Telemetry is built on the core's projections, so the handler reaches its counters through here
    // (called only once messages arrive, after createApp has returned).
    observer: {
      messageReceived: () => metrics.protocol.messageReceived(),
      messageFailed: (reason) => metrics.protocol.messageFailed(reason),
    },
    onError,
    trackChanges: persistenceOn,
    // Traffic recording (debug.record_file): the recorder exists only between start() and stop().
    onInbound: (connection, payload, at) => recorder?.message(connection, payload, at),
    onClosed: (connection, at) => recorder?.connectionClosed(connection, at),
  });
  const { bus, registry, compliance, thresholds } = core;
  // Throws ConfigError naming the bad *_tls key (the schema already checked; files may have changed).
  const tls = loadTlsMaterial(config);
  const authOptions = (listener: ListenerName) => ({
    enabled: tls[listener]?.ca !== undefined,
    mapping: config.auth.role_mapping,
    defaultRole: config.auth.default_role,
    onDenied: (path: string, reason: string) => logger.debug({ listener, path, reason }, 'forbidden'),
  });

  let ready = false;
  let draining = false;
  const build = readBuildInfo(process.env);
  const metrics = createTelemetry({
    config,
    build,
    events$: bus.events$,
    registry,
    compliance,
    logger,
    onError,
    // SPEC: svc_agents_evicted_total "fires at soft-delete time when persistence is on".
    evictionsCountedAt: persistenceOn ? 'soft_delete' : 'sweep',
    isReady: () => ready,
    isDraining: () => draining,
    auth: createTelemetryAuth(authOptions('telemetry')),
  });
  const eventLog = createEventLog(bus.events$, logger);
  const opamp = createOpampServer(core.handler, metrics.protocol, {
    maxMessageBytes: config.opamp.max_message_bytes,
    onError: (error) => logger.error({ err: error }, 'opamp request failed'),
    maxConnections: config.opamp.max_connections,
    idleTimeoutMs: thresholds.evictAfterMs,
    scheduler,
    onRefused: (reason) => logger.warn({ reason }, 'opamp connection refused'),
  });

  const startedAt = scheduler.now();
  let persistenceMetrics: PersistenceMetricsSink | undefined;
  const persistence: DeferredPersistence | undefined = persistenceOn
    ? createDeferredPersistence({
        config,
        logger,
        scheduler,
        registry,
        windows$: core.changes!.windows$,
        publish: (event) => bus.publish(event),
        disconnectAfterMs: thresholds.disconnectAfterMs,
        metrics: (gauges) => (persistenceMetrics = metrics.persistenceMetrics(gauges)),
      })
    : undefined;
  const reader = createFleetReader({
    registry,
    logger,
    store: persistence?.reader,
    onStoreFallback: persistence && ((surface) => persistenceMetrics?.storeFallbackError(surface)),
  });
  const ui = createUiApp({
    registry,
    logger,
    reader,
    api: {
      build,
      now: () => scheduler.now(),
      startedAt,
      observeRequest: metrics.observeRequest,
      jobStore: persistence?.jobs,
    },
    jobsUi: persistence?.jobsUi,
    pollIntervalMs: config.ui.poll_interval,
    auth: createUiAuth(authOptions('ui')),
  });

  const servers: { opamp?: Server; ui?: Server; telemetry?: Server } = {};
  const urls = { opamp: '', ui: '', telemetry: '' };

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
    await metrics.start();
    // Migrations (under the advisory lock), purge job and session refresh before agents arrive.
    await persistence?.start();
    servers.opamp = await listen(opampServer, config.listeners.opamp);
    const [uiHandler, telemetryHandler] = [ui.callback(), metrics.listener.callback()];
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
    core.startSweeping();
    ready = true;
    logger.info(urls, 'listening');
  }

  async function stop(): Promise<void> {
    draining = true;
    opamp.startDraining();
    logger.info({ drainDelayMs: config.shutdown.drain_delay }, 'draining');
    await new Promise((resolve) => setTimeout(resolve, config.shutdown.drain_delay));
    opamp.ws.closeAll(1001, 'server shutting down');
    await metrics.stop();
    await Promise.all(Object.values(servers).map((s) => closeServer(s)));
    await recorder?.close();
    // The core stops the sweep and completes the bus: the change tracker delivers its final window,
    // and persistence flushes it.
    core.stop();
    await persistence?.stop();
    eventLog.stop();
    logger.info('stopped');
  }

  return {
    config,
    bus,
    registry,
    compliance,
    thresholds,
    telemetry: metrics,
    urls,
    start,
    stop,
  };
}
