// The composition root of the service: agent identity (src/agentIdentity.ts), the fleet core
// (src/fleetCore.ts), telemetry, persistence when database.host is set, the web UI and API, the three
// listeners (src/listeners.ts) and the lifecycle. Everything is made in dependency order, each part
// from parts made before it. Tests start it in-process (port 0 addresses); main.ts starts it for
// real. No module-level singletons.

import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { createAgentIdentity } from './agentIdentity.ts';
import type { EventBus } from './events/bus.ts';
import { createFleetCore } from './fleetCore.ts';
import { readBuildInfo, type BuildInfo } from './io/buildInfo.ts';
import type { Config } from './io/config/schema.ts';
import { createAgentLog } from './io/agentLog.ts';
import { createEventLog } from './io/eventLog.ts';
import type { Logger } from './io/logger.ts';
import { strictPolicy } from './io/opamp/connectionOwners.ts';
import { createRefusalLog } from './io/opamp/refusalLog.ts';
import { createOpampServer } from './io/opamp/opampServer.ts';
import { socketAliveAt } from './io/opamp/wsTransport.ts';
import { createRecorder, type Recorder } from './io/recorder/recorder.ts';
import { recordingHeaderOf } from './io/recorder/recordingHeader.ts';
import { createConfigDirectory } from './io/remoteConfig/configDirectory.ts';
import { createNoConfigs } from './io/remoteConfig/noConfigs.ts';
import { loadTlsMaterial } from './io/tls/loadTls.ts';
import type { ListenerName } from './io/tls/tlsMaterial.ts';
import { createListeners } from './listeners.ts';
import { createConnectionGuard } from './io/connectionGuard.ts';
import type { ComplianceCountersProjection } from './projections/compliance/complianceCounters.ts';
import type { FleetHistory } from './projections/history/fleetHistory.ts';
import { createHistorySampler } from './projections/history/historySampler.ts';
import { createAgentRevoker } from './projections/identity/agentRevoker.ts';
import type { CredentialStore } from './projections/identity/credentialStore.ts';
import { createMemoryCredentialStore } from './projections/identity/memoryCredentialStore.ts';
import { isHeldBySocket, type LivenessThresholds } from './projections/liveness/sweep.ts';
import type { Registry } from './projections/registry/registryProjection.ts';
import type { ConfigCatalog } from './projections/remoteConfig/configCatalog.ts';
import { configStateOf } from './projections/remoteConfig/configState.ts';
import type { DesiredConfigs } from './projections/remoteConfig/desiredConfigProjection.ts';
import type * as PersistenceModule from './persistence/persistence.ts';
import { createServerTelemetry, createTelemetry, type Telemetry } from './telemetry/telemetry.ts';
import { createTelemetryAuth } from './telemetry/telemetryAuth.ts';
import { registerSignInMetrics } from './telemetry/signInMetrics.ts';
import { createFleetReader } from './web/read/fleetReader.ts';
import { createJobTargetResolver } from './web/read/jobTargets.ts';
import { createUiAuth } from './web/auth.ts';
import { createUiApp } from './web/uiApp.ts';
import { createMemorySessionStore } from './projections/access/memorySessionStore.ts';
import { createSignIn } from './web/session/signIn.ts';
import { createMemoryAuditLog } from './projections/access/auditLog.ts';
import { auditWrites } from './web/audit/auditWrites.ts';
import { createAuditRoutes } from './web/audit/auditRoutes.ts';
import { createRenderer } from './web/pages/render.ts';

export interface AppDeps {
  readonly logger: Logger;
  /** Time and timers; virtual in specs. Defaults to RxJS's asyncScheduler (wall clock). */
  readonly scheduler?: SchedulerLike;
  /** Build identity (main reads it with the configuration); without it, package.json and git say. */
  readonly build?: BuildInfo;
}

export interface App {
  readonly config: Config;
  readonly bus: EventBus;
  readonly registry: Registry;
  readonly compliance: ComplianceCountersProjection;
  /** Each agent's desired remote config. */
  readonly desired: DesiredConfigs;
  /** Where remote configs live. */
  readonly configs: ConfigCatalog;
  /** Agent credential bindings and issued certificates: PostgreSQL, else this process's memory. */
  readonly credentials: CredentialStore;
  readonly thresholds: LivenessThresholds;
  /** The fleet over time (the status and fleet pages' charts), sampled from start(). */
  readonly history: Pick<FleetHistory, 'read'>;
  /** Telemetry: the server and fleet Prometheus registries among others (docs/observability.md). */
  readonly telemetry: Telemetry;
  /** Base URLs of the bound listeners, known after start(). */
  readonly urls: { opamp: string; ui: string; telemetry: string };
  start(): Promise<void>;
  /** Graceful shutdown: not ready, refuse new OpAMP connections, drain delay, going-away close. */
  stop(): Promise<void>;
}

/**
 * PostgreSQL's modules (pg, pg-boss and its dashboard, the migrations library) are loaded only when
 * persistence is on: a service without a database never holds them in memory (require of an ES
 * module, synchronous; nothing in src/persistence awaits at the top level).
 */
function loadPersistence(): typeof PersistenceModule {
  return createRequire(import.meta.url)('./persistence/persistence.ts') as typeof PersistenceModule;
}

export function createApp(config: Config, deps: AppDeps): App {
  const { logger } = deps;
  const scheduler = deps.scheduler ?? asyncScheduler;
  const onError = (projection: string, error: unknown) =>
    logger.error({ err: error, projection }, 'projection failed');

  let recorder: Recorder | undefined;
  const build = deps.build ?? readBuildInfo({});
  const serverTelemetry = createServerTelemetry({ config, build, logger });
  const refusalLog = createRefusalLog(
    logger,
    () => scheduler.now(),
    undefined,
    serverTelemetry.logSuppressed,
  );
  // Running totals for the history's message and error rates (the same calls the counters get).
  const traffic = { messages: 0, errors: 0 };
  const protocol = {
    messageReceived: () => {
      traffic.messages++;
      serverTelemetry.protocol.messageReceived();
    },
    messageFailed: (reason: string) => {
      traffic.errors++;
      serverTelemetry.protocol.messageFailed(reason);
    },
    refused: (reason: string, remoteAddr = '') => {
      serverTelemetry.protocol.refused(reason);
      refusalLog.refused(reason, remoteAddr);
    },
    readsPaused: () => serverTelemetry.protocol.readsPaused(),
  };
  // Throws ConfigError naming the bad *_tls key (the schema already checked; files may have changed).
  const tls = loadTlsMaterial(config);

  // SPEC durability rule 1: with database.host empty nothing of persistence is created. The pools
  // and the credential store come first: the agents' admission is built on the store.
  const persistenceModule = config.database.host === '' ? undefined : loadPersistence();
  const database = persistenceModule?.openDatabase(config, logger, `${hostname()}:${process.pid}`);
  const credentials = database?.credentials ?? createMemoryCredentialStore();
  // Lines an agent causes, bounded per agent (svc_log_lines_suppressed_total counts the rest).
  const agentLog = createAgentLog(logger, {
    now: () => scheduler.now(),
    onSuppressed: serverTelemetry.logSuppressed,
  });
  const identity = createAgentIdentity(config, {
    logger,
    agentLog,
    scheduler,
    tls,
    credentials,
    refused: protocol.refused,
  });

  const core = createFleetCore({
    scheduler,
    fleet: {
      heartbeatIntervalMs: config.fleet.heartbeat_interval,
      staleMissedHeartbeats: config.fleet.stale_missed_heartbeats,
      requiredAttributes: config.fleet.required_attributes,
      reportLimits: config.agents.limits,
      maxAgents: config.fleet.max_agents,
      ownership: strictPolicy(config.agents.max_per_gateway),
    },
    admission: identity.bindings,
    observer: protocol,
    onError,
    // Traffic recording (debug.record_file): the recorder exists only between start() and stop().
    onInbound: (connection, payload, at) => recorder?.message(connection, payload, at),
    onClosed: (connection, at) => recorder?.connectionClosed(connection, at),
    certificates: identity.certificates,
    ownTelemetry: config.own_telemetry,
  });
  const { bus, registry, compliance, thresholds } = core;
  const publish = (event: Parameters<EventBus['publish']>[0]) => bus.publish(event);
  const desiredFor = core.desired.desiredFor.bind(core.desired);
  const authOptions = (listener: ListenerName) => ({
    enabled: tls[listener]?.ca !== undefined,
    mapping: config.auth.role_mapping,
    defaultRole: config.auth.default_role,
    onDenied: (path: string, reason: string) => logger.debug({ listener, path, reason }, 'forbidden'),
  });

  let ready = false;
  let draining = false;
  const metrics = createTelemetry(
    {
      config,
      build,
      events$: bus.events$,
      registry,
      compliance,
      desiredFor,
      logger,
      onError,
      // SPEC: svc_agents_evicted_total "fires at soft-delete time when persistence is on".
      evictionsCountedAt: database ? 'soft_delete' : 'sweep',
      isReady: () => ready,
      isDraining: () => draining,
      auth: createTelemetryAuth(authOptions('telemetry')),
    },
    serverTelemetry,
  );
  const eventLog = createEventLog(bus.events$, logger, agentLog);
  // Every OpAMP socket counts toward opamp.max_connections from accept, TLS or not.
  const opampSockets = createConnectionGuard({
    firstRequestMs: config.listeners.header_timeout,
    maxConnections: config.opamp.max_connections,
    onRefused: protocol.refused,
  });
  const opamp = createOpampServer(core.handler, protocol, {
    maxMessageBytes: config.opamp.max_message_bytes,
    onError: (error) => logger.error({ err: error }, 'opamp request failed'),
    maxConnections: config.opamp.max_connections,
    overCapacity: opampSockets.overCapacity,
    unauthenticated: {
      bytes: config.opamp.max_unauthenticated_message_bytes,
      timeoutMs: config.opamp.unauthenticated_body_timeout,
    },
    idleTimeoutMs: thresholds.evictAfterMs,
    // Liveness follows the transport (docs/protocol.md "Liveness"): held sockets are pinged.
    pingAfterMs: config.fleet.heartbeat_interval,
    holdsAgent: (connection) => core.owners.countOf(connection) > 0,
    scheduler,
    admit: identity.admit,
    onRefused: protocol.refused,
  });

  const startedAt = scheduler.now();
  const persistence =
    database &&
    persistenceModule?.createPersistence({
      database,
      config,
      logger,
      scheduler,
      registry,
      events$: bus.events$,
      publish,
      disconnectAfterMs: thresholds.disconnectAfterMs,
      // A quiet agent on a WebSocket here is alive while the socket answers pings (docs/protocol.md
      // "Liveness"); its session row carries that to the siblings. Not behind a gateway: the
      // gateway's socket answers for the gateway, not for each agent.
      socketAlive: (agent) =>
        isHeldBySocket(agent) ? socketAliveAt(core.owners.holderOf(agent.uid)) : undefined,
      metrics: (gauges) => metrics.persistenceMetrics(gauges),
      remoteConfigs: config.remote_config.dir === '',
      replica: `${hostname()}:${process.pid}`,
      jobs: {
        events$: bus.events$,
        publish,
        agentHere: (uid) => registry.get(uid),
        desiredFor,
        deliver: (uid) => {
          core.commands.queue(uid, 'restart');
          core.handler.push(uid);
        },
        withdraw: (uid) => core.commands.drop(uid),
      },
    });
  // Where remote configs live (docs/remote-config.md): remote_config.dir when set (then the only
  // source), else the database, else nowhere (writes answer 503).
  const configDirectory =
    config.remote_config.dir === ''
      ? undefined
      : createConfigDirectory({ dir: config.remote_config.dir, publish, scheduler, logger });
  const configs: ConfigCatalog = configDirectory ?? persistence?.configs ?? createNoConfigs();
  const revoker = createAgentRevoker({ store: credentials, publish, now: () => scheduler.now() });
  if (persistence !== undefined) metrics.jobMetrics(() => persistence.jobs.counts());
  const reader = createFleetReader({
    registry,
    logger,
    store: persistence?.reader,
    onStoreFallback: persistence && metrics.storeFallbacks(),
  });
  const resolveTargets = createJobTargetResolver({ reader, desiredFor, configs });
  const history = createHistorySampler({
    agents: () => registry.values(),
    configStateOf: (agent) => configStateOf(agent, desiredFor(agent)),
    traffic: () => traffic,
    scheduler,
    onError,
  });
  // People's sessions and the audit log: in PostgreSQL with persistence (every replica), else here.
  const sessionStore = database?.sessions ?? createMemorySessionStore();
  const auditLog = database?.audit ?? createMemoryAuditLog();
  // The sign-in and audit pages' templates (the other pages compile their own at first use).
  const render = createRenderer({ pollIntervalMs: config.ui.poll_interval });
  const signInCounters = registerSignInMetrics(serverTelemetry.server);
  const signIn = createSignIn({
    onSignIn: signInCounters.signIn,
    config,
    store: sessionStore,
    logger,
    now: () => scheduler.now(),
    uiTls: tls.ui !== undefined,
    render,
  });
  const auditSink = {
    log: auditLog,
    now: () => scheduler.now(),
    logLine: (entry: object) => logger.info({ audit: entry }, 'audit'),
    onError: (error: unknown, entry: object) => {
      signInCounters.auditFailed();
      logger.error({ err: error, audit: entry }, 'audit entry not recorded');
    },
  };
  const ui = createUiApp({
    registry,
    logger,
    reader,
    api: {
      build,
      credentials,
      agentAuthentication: identity.authentication,
      now: () => scheduler.now(),
      startedAt,
      observeRequest: metrics.observeRequest,
      jobStore: persistence?.jobs,
      jobs: persistence?.jobs,
      resolveTargets,
      configs,
      desired: core.desired,
      allowUnauthenticatedWrites: config.auth.allow_unauthenticated_writes,
      revoker,
      audit: auditLog,
    },
    jobsUi: persistence?.jobsUi,
    pollIntervalMs: config.ui.poll_interval,
    history: history.history,
    requestPolicy: { allowedHosts: config.ui.allowed_hosts, allowedOrigins: config.ui.allowed_origins },
    countRefusal: metrics.uiRefused,
    auth: createUiAuth({
      ...authOptions('ui'),
      tokens: config.auth.api_tokens,
      anonymousReads: config.auth.anonymous_reads,
      sessions: signIn.sessions,
      allowUnauthenticatedWrites: config.auth.allow_unauthenticated_writes,
    }),
    signIn,
    audit: {
      recorder: auditWrites({ sink: auditSink, configs }),
      routes: createAuditRoutes({ log: auditLog, render, now: () => scheduler.now() }),
    },
  });
  const listeners = createListeners(config.listeners, tls, identity.caPem, {
    headerTimeoutMs: config.listeners.header_timeout,
    refused: (listener, reason, remoteAddr) => {
      if (listener === 'opamp') protocol.refused(reason, remoteAddr);
      else if (listener === 'ui') serverTelemetry.uiRefused(reason);
      else serverTelemetry.telemetryRefused(reason);
    },
  });

  async function start(): Promise<void> {
    if (config.debug.record_file !== '') {
      const header = recordingHeaderOf(config, scheduler.now());
      recorder = await createRecorder({ file: config.debug.record_file, header, logger });
    }
    await metrics.start();
    if (config.auth.allow_unauthenticated_writes)
      logger.warn(
        'auth.allow_unauthenticated_writes is true: anyone who reaches the UI listener can change the configs agents run and act on jobs',
      );
    // Migrations (under the advisory lock), purge job, session refresh and the configs in force before
    // agents arrive; the job steps get the resolver built on persistence's own reader.
    await persistence?.start({ resolveTargets });
    await configDirectory?.start();
    await listeners.open(
      'opamp',
      (req, res) => opamp.onRequest(req, res),
      (req, socket, head) => opamp.onUpgrade(req, socket, head),
      opampSockets,
    );
    const [uiHandler, telemetryHandler] = [ui.callback(), metrics.listener.callback()];
    await listeners.open('ui', (req, res) => void uiHandler(req, res));
    await signIn.start(listeners.urls.ui);
    await listeners.open('telemetry', (req, res) => void telemetryHandler(req, res));
    core.startSweeping();
    history.start();
    ready = true;
    logger.info(listeners.urls, 'listening');
  }

  async function stop(): Promise<void> {
    draining = true;
    opamp.startDraining();
    logger.info({ drainDelayMs: config.shutdown.drain_delay }, 'draining');
    await new Promise((resolve) => setTimeout(resolve, config.shutdown.drain_delay));
    // Bounded by configuration, not by peers: what has not closed within close_timeout is cut, the
    // WebSockets that did not answer the close frame and the HTTP requests still in flight.
    const closeTimeoutMs = config.shutdown.close_timeout;
    const cutAt = Date.now() + closeTimeoutMs;
    const cut = await opamp.ws.closeAll(1001, 'server shutting down', closeTimeoutMs);
    if (cut > 0) {
      serverTelemetry.shutdownCut(cut);
      logger.warn({ sockets: cut, closeTimeoutMs }, 'terminated sockets that did not answer the close frame');
    }
    await metrics.stop();
    await listeners.close(Math.max(0, cutAt - Date.now()));
    signIn.stop();
    await recorder?.close();
    configDirectory?.stop();
    history.stop();
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
    desired: core.desired,
    configs,
    credentials,
    thresholds,
    history: history.history,
    telemetry: metrics,
    urls: listeners.urls,
    start,
    stop,
  };
}
