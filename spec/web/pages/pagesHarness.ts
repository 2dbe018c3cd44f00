// Helpers for the web UI route specs: real agents over WebSocket, and a second UI listener over the
// same registry whose fleet reader merges a store that fails (for the partial banner and 404 identity).

import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { App } from '../../../src/app.ts';
import { readBuildInfo } from '../../../src/io/buildInfo.ts';
import { baseUrl, closeServer, createPlainServer, listen } from '../../../src/io/listen.ts';
import type { AgentStoreReader } from '../../../src/persistence/agents/storeReader.ts';
import { createNoConfigs } from '../../../src/io/remoteConfig/noConfigs.ts';
import { createFleetReader, type FleetReader } from '../../../src/web/read/fleetReader.ts';
import { createUiApp } from '../../../src/web/uiApp.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';

export interface TestAgent {
  readonly uid: string;
  readonly ws: WsAgent;
}

export interface AgentOptions {
  readonly identifying?: Record<string, string>;
  readonly nonIdentifying?: Record<string, string>;
  readonly healthy?: boolean;
  readonly fields?: Record<string, unknown>;
}

/** Connects one agent over WebSocket and waits for the reply to its first message. */
export async function connectAgent(app: App, options: AgentOptions = {}): Promise<TestAgent> {
  const uid = newUid();
  const ws = await WsAgent.open(app.urls.opamp);
  const health =
    options.healthy === undefined
      ? {}
      : { health: { healthy: options.healthy, status: options.healthy ? 'StatusOK' : 'StatusFailed' } };
  await ws.send(
    agentMessage(uid, {
      agentDescription: description(options.identifying ?? {}, options.nonIdentifying ?? {}),
      ...health,
      ...options.fields,
    }),
  );
  return { uid, ws };
}

export async function get(url: string): Promise<{ status: number; headers: Headers; body: string }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: await res.text() };
}

export const failingStore: AgentStoreReader = {
  listAgents: () => ({ ok: false, error: new Error('connection refused') }),
  getAgent: () => Promise.reject(new Error('connection refused')),
};

export interface SideUi {
  readonly url: string;
  readonly logs: string[];
  close(): Promise<void>;
}

/**
 * A UI listener on loopback over `app`'s registry, reading through `store` (or through `reader` when
 * given); logs are captured as JSON lines.
 */
export async function startSideUi(app: App, store: AgentStoreReader, reader?: FleetReader): Promise<SideUi> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const logger: Logger = pino({ level: 'info' }, sink);
  const ui = createUiApp({
    registry: app.registry,
    logger,
    reader: reader ?? createFleetReader({ registry: app.registry, store, logger }),
    api: {
      build: readBuildInfo({}),
      agentAuthentication: { tokens: false, client_certificates: false, agent_certificates: false },
      now: () => Date.now(),
      startedAt: Date.now(),
      configs: createNoConfigs(),
      desired: app.desired,
      allowUnauthenticatedWrites: false,
    },
    pollIntervalMs: 1000,
  });
  const handle = ui.callback();
  const server: Server = await listen(
    createPlainServer((req, res) => void handle(req, res)),
    '127.0.0.1:0',
  );
  return { url: baseUrl(server), logs, close: () => closeServer(server) };
}

/** Every URL in src/href/action attributes and CSS url(...) of an HTML or CSS text. */
export function referencedUrls(text: string): string[] {
  const attrs = [...text.matchAll(/\b(?:src|href|action|hx-get|hx-post|xlink:href)\s*=\s*"([^"]*)"/g)].map(
    (m) => m[1] ?? '',
  );
  const css = [...text.matchAll(/url\(\s*['"]?([^'")]*)/g)].map((m) => m[1] ?? '');
  return [...attrs, ...css];
}

/** True for URLs that leave the origin: a scheme or a protocol-relative `//host`. */
export const isExternal = (url: string): boolean => /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(url.trim());
