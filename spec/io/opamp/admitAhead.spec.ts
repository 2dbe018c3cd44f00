// Asking the store ahead for a message that waits behind others (agentAdmission.ts ahead(),
// admitAhead.ts): the id is asked at once, its message's turn finds the answer in flight or held and
// asks nothing more; an id in flight with the very credential is never asked twice; nothing is asked
// without a credential, for a certificate naming another id, or for a message that breaks a rule now
// (its id stays unbound, as when it is handled).

import { expect } from 'chai';
import { asyncScheduler } from 'rxjs';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { createFleetCore } from '../../../src/fleetCore.ts';
import { createAgentAdmission } from '../../../src/io/opamp/agentAdmission.ts';
import { createConnection, createConnectionIds, type Admission } from '../../../src/io/opamp/connection.ts';
import { strictPolicy } from '../../../src/io/opamp/connectionOwners.ts';
import { parseSelector } from '../../../src/projections/filter/selector.ts';
import type { AgentCredential } from '../../../src/projections/identity/agentCredential.ts';
import { createMemoryCredentialStore } from '../../../src/projections/identity/memoryCredentialStore.ts';
import { agentMessage, description, newUid } from '../../support/agentClient.ts';
import { uid } from '../../support/events.ts';

const ids = createConnectionIds();
const token = (name: string, selector?: string): Admission => {
  const parsed = selector === undefined ? undefined : parseSelector(selector);
  return {
    credential: { kind: 'token', name },
    url: 'ws://opamp/v1/opamp',
    ...(parsed?.ok ? { selector: parsed.value } : {}),
  };
};
const ws = (auth?: Admission) => createConnection('ws', '127.0.0.1:1', null, ids(), auth);

function setup() {
  const store = createMemoryCredentialStore();
  const asked: string[] = [];
  const admission = createAgentAdmission({
    store: {
      bind: (id: InstanceUid, credential: AgentCredential, at: number) => {
        asked.push(`${id} ${credential.name}`);
        return store.bind(id, credential, at);
      },
    },
    cacheMs: 60_000,
    cacheSize: 100,
    onStoreError: () => undefined,
  });
  return { store, asked, admission };
}

describe('asking the credential store ahead', () => {
  it('asks at once, and the message’s turn finds the ask in flight, then held', async () => {
    const { asked, admission } = setup();
    const socket = ws(token('a'));
    admission.ahead(socket, uid(1), 0);
    expect(asked).to.deep.equal([`${uid(1)} a`]);
    admission.ahead(socket, uid(1), 1);
    const turn = admission.admit(socket, uid(1), 2);
    expect(turn, 'in flight: the same ask').to.be.instanceOf(Promise);
    expect(await turn).to.equal(undefined);
    expect(admission.admit(socket, uid(1), 3), 'held').to.equal(undefined);
    expect(asked, 'asked once').to.deep.equal([`${uid(1)} a`]);
  });

  it('asks apart for another credential, which the store refuses after the first', async () => {
    const { asked, admission } = setup();
    admission.ahead(ws(token('a')), uid(1), 0);
    const other = admission.admit(ws(token('b')), uid(1), 1);
    expect(await other).to.deep.include({ reason: 'uid_bound_elsewhere' });
    expect(asked).to.deep.equal([`${uid(1)} a`, `${uid(1)} b`]);
  });

  it('asks nothing without a credential or for a certificate naming another id', () => {
    const { asked, admission } = setup();
    admission.ahead(ws(), uid(1), 0);
    const certificate: Admission = {
      credential: { kind: 'agent_certificate', name: `spiffe://example.org/agent/${uid(2)}`, serial: '0a' },
      url: 'wss://opamp/v1/opamp',
    };
    admission.ahead(ws(certificate), uid(1), 0);
    expect(asked).to.deep.equal([]);
  });

  it('asks nothing for a message that breaks a rule now (outside the token’s selector)', async () => {
    const { asked, admission, store } = setup();
    const core = createFleetCore({
      scheduler: asyncScheduler,
      fleet: {
        heartbeatIntervalMs: 30_000,
        staleMissedHeartbeats: 3,
        requiredAttributes: [],
        ownership: strictPolicy(10),
      },
      admission,
      observer: { messageReceived: () => undefined, messageFailed: () => undefined },
      onError: (_p, error) => {
        throw error;
      },
    });
    try {
      const socket = ws(token('web', 'service.name=web'));
      const [outside, inside] = [newUid(), newUid()];
      core.handler.ahead?.(
        socket,
        agentMessage(outside, { agentDescription: description({ 'service.name': 'db' }) }),
      );
      core.handler.ahead?.(
        socket,
        agentMessage(inside, { agentDescription: description({ 'service.name': 'web' }) }),
      );
      expect(asked).to.deep.equal([`${inside} web`]);
      expect(await store.binding(outside as InstanceUid), 'nothing bound').to.equal(undefined);
    } finally {
      core.stop();
    }
  });
});
