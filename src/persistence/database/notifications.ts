// PostgreSQL LISTEN/NOTIFY on a dedicated connection: how replicas hear at once that a sibling wrote
// something (a flush, a config change, a job step). Notifications are a hint, never the only path:
// a connection can drop and a NOTIFY sent meanwhile is lost, so every user also reads on a timer, and
// `onConnected` runs after each (re)connection so users re-read what they may have missed.
// Contract: handlers run on the event loop in the order notifications arrive and must not throw
// (a throwing handler is logged and the others still run). start() never rejects: a failed
// connection is retried every `retryMs` until stop().

import pg from 'pg';
import type { Logger } from '../../io/logger.ts';
import type { ConnectionSettings } from './connectionSettings.ts';
import type { Sql } from './sql.ts';

export interface Notifications {
  /** Calls `handler(payload)` for each NOTIFY on `channel`; returns the unsubscribe. */
  on(channel: string, handler: (payload: string) => void): () => void;
  /** Calls `handler` after every successful (re)connection. */
  onConnected(handler: () => void): () => void;
  readonly connected: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface NotificationsOptions {
  readonly logger: Logger;
  /** Pause before reconnecting; default 1 s. */
  readonly retryMs?: number;
}

/** The statement that notifies `channel` (sent inside the writer's transaction: delivered at commit). */
export function notifySql(channel: string, payload = ''): Sql {
  return { text: 'SELECT pg_notify($1, $2)', values: [channel, payload] };
}

const quoted = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

export function createNotifications(
  settings: ConnectionSettings,
  options: NotificationsOptions,
): Notifications {
  const { logger } = options;
  const retryMs = options.retryMs ?? 1000;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const connectedHandlers = new Set<() => void>();
  let client: pg.Client | undefined;
  let connected = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const safely = (what: string, run: () => void) => {
    try {
      run();
    } catch (error) {
      logger.error({ err: error, what }, 'notification handler failed');
    }
  };

  function scheduleReconnect(): void {
    connected = false;
    if (stopped || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, retryMs);
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const next = new pg.Client({
      ...settings,
      connectionTimeoutMillis: 5000,
      application_name: 'opamp-fleet-server listen',
    });
    client = next;
    // An error ends the session; 'end' follows and schedules the reconnection.
    next.on('error', (error) => logger.warn({ err: error }, 'notification connection failed'));
    next.on('end', () => {
      if (client === next) scheduleReconnect();
    });
    next.on('notification', (message) => {
      for (const handler of handlers.get(message.channel) ?? [])
        safely(message.channel, () => handler(message.payload ?? ''));
    });
    try {
      await next.connect();
      for (const channel of handlers.keys()) await next.query(`LISTEN ${quoted(channel)}`);
      connected = true;
      for (const handler of connectedHandlers) safely('connected', handler);
    } catch (error) {
      logger.warn({ err: error }, 'could not listen for notifications; retrying');
      await next.end().catch(() => undefined);
      if (client === next) scheduleReconnect();
    }
  }

  return {
    on(channel, handler) {
      let set = handlers.get(channel);
      if (set === undefined) {
        set = new Set();
        handlers.set(channel, set);
        // LISTEN is idempotent; a client still connecting queues it.
        client?.query(`LISTEN ${quoted(channel)}`).catch(() => undefined);
      }
      set.add(handler);
      return () => void set.delete(handler);
    },
    onConnected(handler) {
      connectedHandlers.add(handler);
      return () => void connectedHandlers.delete(handler);
    },
    get connected() {
      return connected;
    },
    start: () => connect(),
    async stop() {
      stopped = true;
      connected = false;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
