// The binding property (issue 29; docs/security.md "The binding rule"): no sequence of messages,
// certificate issues and revocations lets a credential speak for an id it does not hold, over both
// transports and every credential kind. Runs the service's own admission path (admitOn: the ids a
// connection holds in connectionOwners, the admission's cache, the in-memory credential store, the
// revocation closer) against a ledger of who may hold each id: the first credential that spoke for it,
// then only a certificate the agent CA issued to that holder for that id; nobody once it is revoked.
// `npm run fuzz` sets FUZZ_RUNS for long runs (FUZZ_SEED replays a failure).

import { expect } from 'chai';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import type { InstanceUid } from '../../src/events/ids.ts';
import { admitOn, createAgentAdmission } from '../../src/io/opamp/agentAdmission.ts';
import {
  createConnection,
  createConnectionIds,
  type OpampConnection,
} from '../../src/io/opamp/connection.ts';
import { createConnectionOwners, strictPolicy } from '../../src/io/opamp/connectionOwners.ts';
import { createRevocationCloser } from '../../src/io/opamp/revocationCloser.ts';
import { sameHolder, type AgentCredential } from '../../src/projections/identity/agentCredential.ts';
import { createMemoryCredentialStore } from '../../src/projections/identity/memoryCredentialStore.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 100);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = { numRuns: Math.max(1, Math.floor(runs / 10)), ...(seed === undefined ? {} : { seed }) };

const uids = [0, 1, 2].map((i) => `0190c5a4-7d2e-7000-8000-00000000000${i}` as InstanceUid);
const spiffe = (uid: InstanceUid) => `spiffe://example.org/agent/${uid}`;

/** The credentials present from the start: two tokens, a client certificate naming no id, one naming uids[0]. */
const initial: readonly AgentCredential[] = [
  { kind: 'token', name: 'dev' },
  { kind: 'token', name: 'prod' },
  { kind: 'certificate', name: 'CN=collector', serial: 'c0' },
  { kind: 'certificate', name: `spiffe://corp/agent/${uids[0]}`, serial: 'c1' },
];

type Step =
  | { readonly do: 'speak'; readonly who: number; readonly uid: number; readonly ws: boolean }
  /** The agent CA issues a certificate for `uid` to credential `who` (only ever to its holder, as the CSR flow does after admission; `any`: to whoever, as a CSR for an id the service never admitted would). */
  | { readonly do: 'issue'; readonly who: number; readonly uid: number; readonly any: boolean }
  | { readonly do: 'revoke'; readonly uid: number }
  | { readonly do: 'close'; readonly who: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      do: fc.constant('speak' as const),
      who: fc.nat(5),
      uid: fc.nat(1),
      ws: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      do: fc.constant('issue' as const),
      who: fc.nat(5),
      uid: fc.nat(1),
      any: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ do: fc.constant('revoke' as const), uid: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ do: fc.constant('close' as const), who: fc.nat(5) }) },
);

async function run(steps: readonly Step[]): Promise<void> {
  const store = createMemoryCredentialStore();
  const owners = createConnectionOwners(strictPolicy(10));
  const admission = createAgentAdmission({ store, cacheMs: 50, cacheSize: 16, onStoreError: () => {} });
  const events$ = new Subject<FleetEvent>();
  createRevocationCloser({
    events$,
    owners,
    admission,
    publish: () => {},
    now: () => t,
    onError: (e) => {
      throw e;
    },
  });
  const ids = createConnectionIds();
  const credentials: AgentCredential[] = [...initial];
  /** Who may hold each id (the ledger); `revoked` once revoked. */
  const ledger = new Map<InstanceUid, AgentCredential | 'revoked'>();
  /** Certificates issued: serial → the credential it was issued to. */
  const issuedTo = new Map<string, AgentCredential>();
  const sockets = new Map<AgentCredential, OpampConnection>();
  /** 0–3: the initial credentials; 4, 5: the newest certificates issued (so they are tried often). */
  const pick = (who: number): AgentCredential =>
    who < initial.length
      ? initial[who]!
      : (credentials[credentials.length - 1 - (who - initial.length)] ?? initial[0]!);
  let t = 1_000;
  let serials = 0;

  const socketOf = (credential: AgentCredential): OpampConnection => {
    const open = sockets.get(credential);
    if (open !== undefined && !open.closed) return open;
    const connection = createConnection('ws', '127.0.0.1:1', null, ids(), { credential, url: 'wss://x' });
    connection.close = () => {
      connection.closed = true;
      owners.releaseAll(connection);
    };
    sockets.set(credential, connection);
    return connection;
  };

  for (const s of steps) {
    t += 7;
    if (s.do === 'revoke') {
      const uid = uids[s.uid]!;
      await store.revoke(uid, 'ops', t);
      ledger.set(uid, 'revoked');
      events$.next({ type: 'AgentCredentialRevoked', at: t, data: { uid, revokedBy: 'ops' } });
      for (const connection of sockets.values())
        expect(owners.isAdmitted(uid, connection), 'every connection admitted for it is closed').to.equal(
          false,
        );
      continue;
    }
    const credential = pick(s.who);
    if (s.do === 'close') {
      sockets.get(credential)?.close?.(1000, '');
      continue;
    }
    if (s.do === 'issue') {
      const uid = uids[s.uid]!;
      const holder = ledger.get(uid);
      if (!s.any && (holder === undefined || holder === 'revoked' || !sameHolder(holder, credential)))
        continue;
      const serial = (++serials).toString(16).padStart(4, '0');
      const to = { kind: credential.kind, name: credential.name };
      await store.recordIssued({
        serial,
        uid,
        notBefore: 0,
        notAfter: 1e12,
        issuedAt: t,
        issuedBy: 'x',
        issuedTo: to,
      });
      issuedTo.set(serial, credential);
      credentials.push({ kind: 'agent_certificate', name: spiffe(uid), serial });
      continue;
    }
    const uid = uids[s.uid]!;
    const connection = s.ws
      ? socketOf(credential)
      : createConnection('http', '127.0.0.1:1', null, ids(), { credential, url: 'https://x' });
    const outcome = await admitOn(admission, owners, connection, uid, t);
    if (outcome !== undefined) continue;
    // Admitted: it must be the id's rightful holder, now.
    const holder = ledger.get(uid);
    expect(holder, `${credential.name} spoke for a revoked ${uid}`).to.not.equal('revoked');
    if (credential.kind === 'agent_certificate')
      expect(credential.name, 'a certificate speaks only for the id it names').to.equal(spiffe(uid));
    if (holder === undefined) {
      ledger.set(uid, credential);
      continue;
    }
    if (holder === 'revoked' || sameHolder(holder, credential)) continue;
    const to = credential.serial === undefined ? undefined : issuedTo.get(credential.serial);
    expect(to && sameHolder(to, holder), `${credential.name} took ${uid} from ${holder.name}`).to.equal(true);
    ledger.set(uid, credential);
  }
}

describe('the binding property (fuzz)', () => {
  it('lets no sequence of messages, issues and revocations make a credential speak for an id it does not hold', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), run), params);
  });
});
