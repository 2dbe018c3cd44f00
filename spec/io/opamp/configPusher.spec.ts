// The config pusher with the real core (handler, projections) in virtual time: a config change
// reaches connected WebSocket agents without waiting for their next message, in batches per turn.

import { handledNow } from '../../../src/io/opamp/handler.ts';
import { expect } from 'chai';
import { createFleetCore, type FleetCore } from '../../../src/fleetCore.ts';
import { decodeServerToAgent, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import {
  createConnection,
  createConnectionIds,
  type OpampConnection,
} from '../../../src/io/opamp/connection.ts';
import { instanceUidBytes } from '../../../src/io/opamp/instanceUid.ts';
import { joined } from '../../../src/io/opamp/reply.ts';
import { description } from '../../support/agentClient.ts';
import { configChanged, revision } from '../../support/configs.ts';
import { uid } from '../../support/events.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

const nextId = createConnectionIds();

const capabilities = 0x1 | 0x2 | 0x1000; // ReportsStatus | AcceptsRemoteConfig | ReportsRemoteConfig
const hexOf = (bytes: unknown) => Buffer.from(bytes as Uint8Array).toString('hex');

describe('config pusher (virtual time)', () => {
  let clock: VirtualClock;
  let core: FleetCore;
  const pushed = new Map<string, string[]>();

  beforeEach(() => {
    clock = new VirtualClock(0);
    pushed.clear();
    core = createFleetCore({
      scheduler: clock.scheduler,
      fleet: { heartbeatIntervalMs: 30_000, staleMissedHeartbeats: 3, requiredAttributes: [] },
      observer: { messageReceived: () => undefined, messageFailed: () => undefined },
      onError: (_, error) => {
        throw error;
      },
    });
  });
  afterEach(() => core.stop());

  /** An agent over its own WebSocket (or one relayed on `via`), registered with a full report. */
  function join(n: number, env: string, via?: OpampConnection, caps = capabilities): OpampConnection {
    const connection = via ?? createConnection('ws', `127.0.0.1:${n}`, null, nextId());
    connection.send = (head, tail) => {
      const reply = decodeServerToAgent(joined({ head, tail }));
      const key = hexOf(reply.instanceUid);
      pushed.set(key, [
        ...(pushed.get(key) ?? []),
        hexOf((reply.remoteConfig as { configHash: unknown }).configHash),
      ]);
    };
    const reply = handledNow(
      core.handler.handle(
        connection,
        encodeAgentToServer({
          instanceUid: instanceUidBytes(uid(n)),
          capabilities: caps,
          agentDescription: description({ env }),
          remoteConfigStatus: { lastRemoteConfigHash: new Uint8Array(), status: 0 },
        }),
      ),
    );
    expect(reply.ok).to.equal(true);
    return connection;
  }
  const pushesTo = (n: number) => pushed.get(hexOf(instanceUidBytes(uid(n)))) ?? [];

  it('pushes a new config to the connected agents it targets, once, without a message from them', () => {
    join(1, 'prod');
    join(2, 'staging');
    join(3, 'prod', undefined, 0x1 | 0x1000); // lacks AcceptsRemoteConfig
    core.bus.publish(configChanged(revision('base', 'env=prod', 'a: 1\n')));
    expect(pushesTo(1), 'nothing before the scheduler turns').to.deep.equal([]);
    clock.advance(0);
    const desired = core.desired.desiredFor(core.registry.get(uid(1))!)!;
    expect(pushesTo(1)).to.deep.equal([desired.hash]);
    expect(pushesTo(2)).to.deep.equal([]);
    expect(pushesTo(3)).to.deep.equal([]);
    core.bus.publish(configChanged(revision('other', 'env=staging', 'b: 1\n')));
    clock.advance(0);
    expect(pushesTo(1), 'its desired config did not change').to.have.length(1);
    expect(pushesTo(2)).to.have.length(1);
  });

  it('reaches every agent behind a gateway on the gateway socket, in more than one batch', () => {
    const gateway = createConnection('ws', '127.0.0.1:9', null, nextId());
    for (let n = 1; n <= 2500; n++) join(n, 'prod', gateway);
    core.bus.publish(configChanged(revision('base', 'env=prod', 'a: 1\n')));
    clock.advance(0);
    expect([...pushed.values()].filter((hashes) => hashes.length === 1)).to.have.length(2500);
  });

  it('does not push to an agent that has disconnected', () => {
    const connection = join(1, 'prod');
    core.handler.closed(connection);
    core.bus.publish(configChanged(revision('base', 'env=prod', 'a: 1\n')));
    clock.advance(0);
    expect(pushesTo(1)).to.deep.equal([]);
  });
});
