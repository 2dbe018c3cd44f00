import { expect } from 'chai';
import { createConnection, createConnectionIds } from '../../../src/io/opamp/connection.ts';
import { toInstanceUid } from '../../../src/io/opamp/instanceUid.ts';

const nextId = createConnectionIds();

describe('a connection', () => {
  it('hands out one session until the connection becomes a gateway', () => {
    const connection = createConnection('ws', '10.0.0.1:5000', null, nextId());
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

  it("numbers connections apart with each listener's own id source, or takes the id a recording carries", () => {
    const ids = createConnectionIds();
    const one = createConnection('http', '', null, ids());
    const two = createConnection('http', '', null, ids());
    expect([one.id, two.id]).to.deep.equal([1, 2]);
    expect(createConnectionIds()(), 'another listener starts at 1').to.equal(1);
    expect(createConnection('ws', '', null, one.id).id).to.equal(one.id);
  });

  it('reads instance_uids as toInstanceUid does, the same one again without converting it', () => {
    const connection = createConnection('ws', '', null, nextId());
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
