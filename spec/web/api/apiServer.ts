// The /api middleware on its own loopback server, for specs that inject collaborators the running
// service does not have yet (a JobStore) or observe what it reports (observeRequest).

import type { Server } from 'node:http';
import Koa from 'koa';
import { createEventBus, type EventBus } from '../../../src/events/bus.ts';
import { baseUrl, closeServer, createPlainServer, listen } from '../../../src/io/listen.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import {
  createRegistryProjection,
  type RegistryProjection,
} from '../../../src/projections/registry/registryProjection.ts';
import { createNoConfigs } from '../../../src/io/remoteConfig/noConfigs.ts';
import { createDesiredConfigProjection } from '../../../src/projections/remoteConfig/desiredConfigProjection.ts';
import type { ApiDeps } from '../../../src/web/api/apiDeps.ts';
import { createApiMiddleware } from '../../../src/web/api/apiRouter.ts';
import { createFleetReader } from '../../../src/web/read/fleetReader.ts';

export interface ApiServer {
  readonly url: string;
  readonly bus: EventBus;
  readonly registry: RegistryProjection;
  close(): Promise<void>;
}

export async function startApiServer(extra: Partial<ApiDeps> = {}): Promise<ApiServer> {
  const bus = createEventBus();
  const registry = createRegistryProjection(bus.events$, () => undefined);
  const app = new Koa();
  app.use(
    createApiMiddleware({
      reader: createFleetReader({ registry }),
      registry,
      build: { version: '0.0.0', commit: 'test', go_version: process.version },
      agentAuthentication: { tokens: false, client_certificates: false, agent_certificates: false },
      now: () => Date.UTC(2026, 0, 1),
      startedAt: Date.UTC(2026, 0, 1),
      logger: silentLogger(),
      configs: createNoConfigs(),
      desired: createDesiredConfigProjection(bus.events$, () => undefined),
      allowUnauthenticatedWrites: false,
      ...extra,
    }),
  );
  const handle = app.callback();
  const server: Server = await listen(
    createPlainServer((req, res) => void handle(req, res)),
    '127.0.0.1:0',
  );
  return {
    url: baseUrl(server),
    bus,
    registry,
    close: async () => {
      await closeServer(server);
      registry.stop();
      bus.close();
    },
  };
}
