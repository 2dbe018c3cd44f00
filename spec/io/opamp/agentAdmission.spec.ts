// Which verdicts the admission remembers, against the in-memory credential store (agentAdmission.ts):
// open mode never asks; a certificate naming another id is refused without asking; an id is asked once; a plain-HTTP poll is admitted from what another
// connection learned until it is older than cacheMs; a revocation forgets at once.

import { expect } from 'chai';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { createAgentAdmission } from '../../../src/io/opamp/agentAdmission.ts';
import { createConnection, createConnectionIds, type Admission } from '../../../src/io/opamp/connection.ts';
import type { AgentCredential } from '../../../src/projections/identity/agentCredential.ts';
import { createMemoryCredentialStore } from '../../../src/projections/identity/memoryCredentialStore.ts';
import { uid } from '../../support/events.ts';

const ids = createConnectionIds();
const token = (name: string): Admission => ({
  credential: { kind: 'token', name },
  url: 'ws://opamp/v1/opamp',
});
const ws = (auth?: Admission) => createConnection('ws', '127.0.0.1:1', null, ids(), auth);
const http = (auth?: Admission) => createConnection('http', '127.0.0.1:1', null, ids(), auth);

function setup() {
  const store = createMemoryCredentialStore();
  const asked: InstanceUid[] = [];
  const admission = createAgentAdmission({
    store: {
      bind: (id: InstanceUid, credential: AgentCredential, at: number) => {
        asked.push(id);
        return store.bind(id, credential, at);
      },
    },
    cacheMs: 1_000,
    cacheSize: 2,
    onStoreError: () => undefined,
  });
  return { store, asked, admission };
}

describe('agent admission', () => {
  it('never asks the store for a connection without a credential', () => {
    const { asked, admission } = setup();
    expect(admission.admit(ws(), uid(1), 0)).to.equal(undefined);
    expect(asked).to.deep.equal([]);
  });

  it('asks the store once per id for a credential, then admits it synchronously while remembered', async () => {
    const { asked, admission } = setup();
    const socket = ws(token('a'));
    expect(await admission.admit(socket, uid(1), 0)).to.equal(undefined);
    expect(admission.admit(socket, uid(1), 500), 'remembered').to.equal(undefined);
    expect(asked).to.deep.equal([uid(1)]);
  });

  it('refuses at once, without the store, a certificate speaking for an id it does not name', () => {
    const { asked, admission } = setup();
    const named = uid(1);
    const certificate: Admission = {
      credential: { kind: 'agent_certificate', name: `spiffe://example.org/agent/${named}`, serial: '0a' },
      url: 'wss://opamp/v1/opamp',
    };
    expect(admission.admit(ws(certificate), uid(2), 0)).to.deep.include({ reason: 'uid_not_in_certificate' });
    expect(asked).to.deep.equal([]);
  });

  it('admits the same credential on a new connection from what it learned, until cacheMs has passed', async () => {
    const { asked, admission } = setup();
    await admission.admit(http(token('a')), uid(1), 0);
    expect(admission.admit(http(token('a')), uid(1), 999)).to.equal(undefined);
    expect(admission.admit(http(token('a')), uid(1), 1_000)).to.be.instanceOf(Promise);
    expect(asked).to.deep.equal([uid(1), uid(1)]);
  });

  it('asks the store for another credential, which refuses it', async () => {
    const { admission } = setup();
    await admission.admit(http(token('a')), uid(1), 0);
    expect(await admission.admit(http(token('b')), uid(1), 1)).to.deep.include({
      reason: 'uid_bound_elsewhere',
    });
  });

  it('forgets a revoked id: the next message asks the store, which refuses it', async () => {
    const { store, admission } = setup();
    await admission.admit(http(token('a')), uid(1), 0);
    await store.revoke(uid(1), 'ops', 1);
    admission.forget(uid(1));
    expect(await admission.admit(http(token('a')), uid(1), 2)).to.deep.include({ reason: 'revoked' });
  });

  it('remembers at most cacheSize ids, the oldest leaving first', async () => {
    const { asked, admission } = setup();
    for (const n of [1, 2, 3]) await admission.admit(http(token('a')), uid(n), 0);
    expect(admission.admit(http(token('a')), uid(3), 1)).to.equal(undefined);
    expect(admission.admit(http(token('a')), uid(1), 1)).to.be.instanceOf(Promise);
    expect(asked).to.deep.equal([uid(1), uid(2), uid(3), uid(1)]);
  });
});
