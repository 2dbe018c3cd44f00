import { expect } from 'chai';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { ConnectionAgents, createConnection } from '../../../src/io/opamp/connection.ts';
import { toInstanceUid } from '../../../src/io/opamp/instanceUid.ts';

const a = 'a' as InstanceUid;
const b = 'b' as InstanceUid;
const c = 'c' as InstanceUid;

describe('the agents of a connection', () => {
  it('holds one agent however often it reports', () => {
    const agents = new ConnectionAgents();
    agents.add(a);
    agents.add(a);
    expect([...agents]).to.deep.equal([a]);
    agents.delete(b);
    expect([...agents]).to.deep.equal([a]);
    agents.delete(a);
    expect([...agents]).to.deep.equal([]);
  });

  it('holds every agent behind a gateway, in arrival order, until cleared', () => {
    const agents = new ConnectionAgents();
    for (const uid of [a, b, a, c]) agents.add(uid);
    expect([...agents]).to.deep.equal([a, b, c]);
    agents.delete(b);
    expect([...agents]).to.deep.equal([a, c]);
    agents.clear();
    expect([...agents]).to.deep.equal([]);
    agents.add(b);
    expect([...agents]).to.deep.equal([b]);
  });
});

describe('a connection', () => {
  it('hands out one session until the connection becomes a gateway', () => {
    const connection = createConnection('ws', '10.0.0.1:5000', null);
    const first = connection.session();
    expect(connection.session()).to.equal(first);
    expect(first).to.deep.equal({
      connectionId: connection.id,
      transport: 'ws',
      viaGateway: false,
      remoteAddr: '10.0.0.1:5000',
      tlsSubject: null,
    });
    connection.isGateway = true;
    expect(connection.session()).to.include({ viaGateway: true, connectionId: connection.id });
  });

  it('numbers connections apart, unless given the id a recording carries', () => {
    const one = createConnection('http', '', null);
    const two = createConnection('http', '', null);
    expect(two.id).not.to.equal(one.id);
    expect(createConnection('ws', '', null, one.id).id).to.equal(one.id);
  });

  it('reads instance_uids as toInstanceUid does, the same one again without converting it', () => {
    const connection = createConnection('ws', '', null);
    const a = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
    const b = Uint8Array.from(a, (v, i) => (i === 15 ? v ^ 1 : v));
    const first = connection.instanceUid(a);
    expect(first).to.equal(toInstanceUid(a));
    expect(connection.instanceUid(Uint8Array.from(a))).to.equal(first);
    expect(connection.instanceUid(b)).to.equal(toInstanceUid(b)).and.not.equal(first);
    expect(connection.instanceUid(a)).to.equal(first);
    const ulid = new TextEncoder().encode('01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(connection.instanceUid(ulid)).to.equal('01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(connection.instanceUid(new Uint8Array(3))).to.equal(undefined);
  });
});
