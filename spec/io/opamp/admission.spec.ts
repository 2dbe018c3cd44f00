// The OpAMP listener's answers when admission has to ask the credential store (an agent certificate
// presented): a revoked credential is 401 with WWW-Authenticate: Bearer, a store that cannot answer
// is 503 with Retry-After (never a guess), each counted by reason, over both transports; an admitted
// request carries its admission to the connection the handler sees.

import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createFleetCore } from '../../../src/fleetCore.ts';
import type { AdmissionResult } from '../../../src/io/opamp/admission.ts';
import { createOpampServer } from '../../../src/io/opamp/opampServer.ts';
import { agentMessage, newUid, postHttp, refusedUpgrade, WsAgent } from '../../support/agentClient.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';

interface Listener {
  readonly url: string;
  readonly refused: string[];
  readonly core: ReturnType<typeof createFleetCore>;
  readonly server: Server;
}

async function listen(admit: () => Promise<AdmissionResult>): Promise<Listener> {
  const observer = { messageReceived: () => undefined, messageFailed: () => undefined };
  const core = createFleetCore({
    scheduler: new VirtualClock().scheduler,
    fleet: { heartbeatIntervalMs: 30_000, staleMissedHeartbeats: 3, requiredAttributes: [] },
    observer,
    onError: (_, error) => {
      throw error;
    },
  });
  const refused: string[] = [];
  const opamp = createOpampServer(core.handler, observer, {
    maxMessageBytes: 65_536,
    onError: () => undefined,
    admit,
    onRefused: (reason) => refused.push(reason),
  });
  const server = createServer((req, res) => opamp.onRequest(req, res));
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => opamp.onUpgrade(req, socket, head));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, refused, core, server };
}

/** Status and `header` of a refused WebSocket upgrade and of a refused plain-HTTP request. */
async function refusedBoth(l: Listener, header: string): Promise<unknown[][]> {
  const upgrade = await refusedUpgrade(l.url);
  const post = await postHttp(l.url, agentMessage(newUid()));
  return [
    [upgrade.status, upgrade.headers[header]],
    [post.status, post.headers.get(header)],
  ];
}

const stop = (l: Listener) => {
  l.server.closeAllConnections();
  l.server.close();
};

describe('OpAMP admission that asks the credential store', () => {
  it('refuses a revoked credential with 401 and WWW-Authenticate: Bearer, on both transports, counted', async () => {
    const l = await listen(() => Promise.resolve({ ok: false, reason: 'revoked' }));
    try {
      expect(await refusedBoth(l, 'www-authenticate')).to.deep.equal([
        [401, 'Bearer'],
        [401, 'Bearer'],
      ]);
      expect(l.refused).to.deep.equal(['revoked', 'revoked']);
      expect(l.core.registry.size).to.equal(0);
    } finally {
      stop(l);
    }
  });

  it('answers 503 with Retry-After when the store cannot say, never admitting', async () => {
    const l = await listen(() => Promise.reject(new Error('database down')));
    try {
      expect(await refusedBoth(l, 'retry-after')).to.deep.equal([
        [503, '30'],
        [503, '30'],
      ]);
      expect(l.refused).to.deep.equal(['store_unavailable', 'store_unavailable']);
    } finally {
      stop(l);
    }
  });

  it('hands an admission made later to the WebSocket connection, and serves a plain-HTTP request after one', async () => {
    const credential = { kind: 'token', name: 'fleet-a' } as const;
    const l = await listen(() =>
      Promise.resolve({ ok: true, admission: { credential, presented: undefined, url: 'wss://x/v1/opamp' } }),
    );
    try {
      const wsUid = newUid();
      const ws = await WsAgent.open(l.url);
      await ws.send(agentMessage(wsUid));
      expect(l.core.owners.holderOf(wsUid as InstanceUid)?.admission?.credential).to.deep.equal(credential);
      await ws.close();
      expect((await postHttp(l.url, agentMessage(newUid()))).status).to.equal(200);
      expect(l.refused).to.deep.equal([]);
    } finally {
      stop(l);
    }
  });
});
