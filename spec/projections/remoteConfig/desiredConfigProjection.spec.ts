import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createEventBus } from '../../../src/events/bus.ts';
import { createDesiredConfigProjection } from '../../../src/projections/remoteConfig/desiredConfigProjection.ts';
import type { DesiredEntry } from '../../../src/projections/remoteConfig/desiredConfig.ts';
import { agent } from '../../support/agentFixture.ts';
import { configChanged, configRemoved, revision } from '../../support/configs.ts';

/** The canonical encoding as docs/remote-config.md states it, computed independently. */
function expectedHash(entries: readonly Pick<DesiredEntry, 'name' | 'contentType' | 'body'>[]): string {
  const hash = createHash('sha256').update('opamp-fleet-config/1\n');
  const field = (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  };
  for (const e of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    field(e.name);
    field(e.contentType);
    field(e.body);
  }
  return hash.digest('hex');
}

const prod = agent({ n: 1, identifying: { 'service.name': 'otelcol' }, nonIdentifying: { env: 'prod' } });
const prod2 = agent({ n: 2, identifying: { 'service.name': 'otelcol' }, nonIdentifying: { env: 'prod' } });
const staging = agent({
  n: 3,
  identifying: { 'service.name': 'otelcol' },
  nonIdentifying: { env: 'staging' },
});

function given(...events: Parameters<typeof configChanged>[0][]) {
  const bus = createEventBus();
  const projection = createDesiredConfigProjection(bus.events$, (_, error) => {
    throw error;
  });
  for (const config of events) bus.publish(configChanged(config));
  return { bus, projection };
}

describe('desired-config projection', () => {
  it('gives an agent one entry per enabled config whose selector matches, keyed and ordered by name', () => {
    const { projection } = given(
      revision('zz-exporters', 'env=prod', 'exporters: {}\n'),
      revision('aa-receivers', 'service.name=~"otel.*"', 'receivers: {}\n'),
      revision('mm-staging', 'env=staging', 'processors: {}\n'),
    );
    const desired = projection.desiredFor(prod);
    expect(desired?.entries.map((e) => e.name)).to.deep.equal(['aa-receivers', 'zz-exporters']);
    expect(desired?.hash).to.equal(
      expectedHash([
        { name: 'zz-exporters', contentType: 'text/yaml', body: 'exporters: {}\n' },
        { name: 'aa-receivers', contentType: 'text/yaml', body: 'receivers: {}\n' },
      ]),
    );
  });

  it('gives none, never an empty map, when nothing matches, the config is disabled or removed', () => {
    const { bus, projection } = given(revision('only-prod', 'env=prod', 'a: 1\n'));
    expect(projection.desiredFor(staging)).to.equal(undefined);
    expect(projection.desiredFor(agent({ n: 4, undescribed: true }))).to.equal(undefined);
    bus.publish(configChanged(revision('only-prod', 'env=prod', 'a: 1\n', { revision: 2, enabled: false })));
    expect(projection.desiredFor(prod)).to.equal(undefined);
    bus.publish(configChanged(revision('only-prod', 'env=prod', 'a: 1\n', { revision: 3 })));
    expect(projection.desiredFor(prod)).to.not.equal(undefined);
    bus.publish(configRemoved('only-prod'));
    expect(projection.desiredFor(prod)).to.equal(undefined);
  });

  it('shares one composed config between agents that receive the same revisions', () => {
    const { projection } = given(revision('base', 'service.name=otelcol', 'x'.repeat(16 * 1024)));
    expect(projection.desiredFor(prod)).to.equal(projection.desiredFor(prod2));
    expect(projection.desiredFor(prod)).to.equal(projection.desiredFor(staging));
  });

  it('follows a new revision and a new description, and says when desired configs may have changed', () => {
    const { bus, projection } = given(revision('base', 'env=prod', 'a: 1\n'));
    const versions: number[] = [];
    projection.changes$.subscribe((v) => versions.push(v));
    const before = projection.desiredFor(prod)!;
    bus.publish(configChanged(revision('base', 'env=prod', 'a: 1\n')));
    expect(versions, 'the same revision again changes nothing').to.deep.equal([]);
    bus.publish(configChanged(revision('base', 'env=prod', 'a: 2\n', { revision: 2 })));
    expect(versions).to.have.length(1);
    const after = projection.desiredFor(prod)!;
    expect(after.hash).to.not.equal(before.hash);
    expect(after.entries[0]?.revision).to.equal(2);
    const moved = { ...prod, description: { identifying: {}, nonIdentifying: { env: 'staging' } } };
    expect(projection.desiredFor(moved)).to.equal(undefined);
  });

  it('hashes the content, not the revision number, so a restored revision is the same config', () => {
    const { bus, projection } = given(revision('base', 'env=prod', 'a: 1\n'));
    const first = projection.desiredFor(prod)!.hash;
    bus.publish(configChanged(revision('base', 'env=prod', 'a: 2\n', { revision: 2 })));
    bus.publish(configChanged(revision('base', 'env=prod', 'a: 1\n', { revision: 3 })));
    expect(projection.desiredFor(prod)!.hash).to.equal(first);
  });

  it('computes the same hash in a fresh projection (another replica, or after a restart)', () => {
    const configs = [
      revision('a', 'env=prod', 'one\n'),
      revision('b', 'env=prod', 'two\n', { contentType: 'application/json' }),
    ];
    const hashes = [given(...configs), given(...[...configs].reverse())].map(
      ({ projection }) => projection.desiredFor(prod)?.hash,
    );
    expect(hashes[0]).to.be.a('string').with.length(64);
    expect(hashes[1]).to.equal(hashes[0]);
  });

  it('lets a config whose stored selector does not parse target no agent', () => {
    const { projection } = given(revision('broken', 'env=~"("', 'a: 1\n'));
    expect(projection.desiredFor(prod)).to.equal(undefined);
  });

  it('gives pinned agents the pinned revision instead of the current one, until released', () => {
    const { bus, projection } = given(revision('base', 'env=prod', 'a: 1\n'));
    const current = projection.desiredFor(prod)!.hash;
    const draft = revision('base', 'env=prod', 'a: 2\n', { revision: 2 });
    bus.publish({
      type: 'RemoteConfigPinned',
      at: 1,
      data: { name: 'base', config: draft, uids: [prod.uid] },
    });
    const pinned = projection.desiredFor(prod)!;
    expect(pinned.entries[0]?.revision).to.equal(2);
    expect(pinned.hash).to.not.equal(current);
    expect(projection.desiredFor(prod2)!.hash, 'not pinned: the current revision').to.equal(current);
    bus.publish({ type: 'RemoteConfigPinned', at: 2, data: { name: 'base', config: null, uids: [] } });
    expect(projection.desiredFor(prod)!.hash).to.equal(current);
  });

  it('pins a revision of a config that has no current revision yet (created as a draft)', () => {
    const { bus, projection } = given();
    const draft = revision('fresh', 'env=prod', 'a: 1\n');
    bus.publish({
      type: 'RemoteConfigPinned',
      at: 1,
      data: { name: 'fresh', config: draft, uids: [prod.uid] },
    });
    expect(projection.desiredFor(prod)?.entries.map((e) => e.name)).to.deep.equal(['fresh']);
    expect(projection.desiredFor(prod2)).to.equal(undefined);
  });
});
