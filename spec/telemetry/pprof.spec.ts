import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import type { App } from '../../src/app.ts';
import { startApp } from '../support/startApp.ts';

/** A pprof response: gzipped like Go's, and a Profile once decoded. */
async function profileAt(url: string): Promise<{ profile: Profile; types: string[] }> {
  const res = await fetch(url);
  expect(res.status, url).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('application/octet-stream');
  const raw = Buffer.from(await res.arrayBuffer());
  expect([raw[0], raw[1]]).to.deep.equal([0x1f, 0x8b]);
  const profile = Profile.decode(gunzipSync(raw));
  const s = profile.stringTable.strings;
  const types = profile.sampleType.map((t) => `${s[Number(t.type)]}/${s[Number(t.unit)]}`);
  return { profile, types };
}

describe('profiling (/debug/pprof)', () => {
  describe('when debug.pprof_enabled is false', () => {
    let app: App;
    before(async () => {
      app = await startApp();
    });
    after(() => app.stop());

    it('has no profiling paths', async () => {
      for (const path of ['/debug/pprof/', '/debug/pprof/profile?seconds=1', '/debug/pprof/heap']) {
        const res = await fetch(`${app.urls.telemetry}${path}`);
        await res.arrayBuffer();
        expect(res.status, path).to.equal(404);
      }
    });
  });

  describe('when debug.pprof_enabled is true', () => {
    let app: App;
    before(async () => {
      app = await startApp({ config: { debug: { pprof_enabled: true } } });
    });
    after(() => app.stop());
    const url = (path: string) => `${app.urls.telemetry}/debug/pprof/${path}`;

    it('serves an index of the profiles', async () => {
      const res = await fetch(url(''));
      expect(res.status).to.equal(200);
      const html = await res.text();
      expect(html).to.include('href="profile?seconds=30"').and.include('href="heap"');
    });

    it('serves a CPU profile in pprof format with Go’s sample types', async () => {
      // Keep the CPU busy so that the profile has samples with stacks.
      const busy = setInterval(() => {
        for (let i = 0, x = 0; i < 200_000; i++) x += Math.sqrt(i + x);
      }, 5);
      try {
        const { profile, types } = await profileAt(url('profile?seconds=1'));
        expect(types).to.deep.equal(['samples/count', 'cpu/nanoseconds']);
        expect(Number(profile.period)).to.be.greaterThan(0);
        expect(Number(profile.durationNanos)).to.be.greaterThan(0);
        expect(profile.sample.length).to.be.greaterThan(0);
        const locationIds = new Set(profile.location.map((l) => Number(l.id)));
        for (const sample of profile.sample)
          for (const id of sample.locationId) expect(locationIds.has(Number(id))).to.equal(true);
      } finally {
        clearInterval(busy);
      }
    });

    it('serves a sampled heap profile in pprof format', async () => {
      // Enough live allocation (~30 MB) that the 512 KiB sampler keeps samples whatever else ran before.
      const keep = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `value-${i}`.repeat(8) }));
      const { profile, types } = await profileAt(url('heap'));
      expect(types).to.deep.equal(['inuse_objects/count', 'inuse_space/bytes']);
      expect(profile.sample.length).to.be.greaterThan(0);
      expect(keep.length).to.equal(200_000);
    });

    it('refuses a second CPU profile while one is running', async () => {
      const responses = await Promise.all([fetch(url('profile?seconds=1')), fetch(url('profile?seconds=1'))]);
      await Promise.all(responses.map((r) => r.arrayBuffer()));
      expect(responses.map((r) => r.status).sort()).to.deep.equal([200, 409]);
    });

    it('rejects a profile length outside 1..300 seconds', async () => {
      for (const seconds of ['0', '301', 'abc', '1.5', '-1']) {
        const res = await fetch(url(`profile?seconds=${seconds}`));
        await res.arrayBuffer();
        expect(res.status, seconds).to.equal(400);
      }
    });
  });

  it('ends a CPU profile in flight when the service stops', async () => {
    const app = await startApp({ config: { debug: { pprof_enabled: true } } });
    const long = fetch(`${app.urls.telemetry}/debug/pprof/profile?seconds=300`).then(
      (r) => r.status,
      () => 'closed',
    );
    // The profile is running once a second request is refused.
    for (let status = 0; status !== 409;) {
      const r = await fetch(`${app.urls.telemetry}/debug/pprof/profile?seconds=1`);
      await r.arrayBuffer();
      status = r.status;
    }
    await app.stop();
    expect(await long).to.be.oneOf([503, 'closed']);
  });
});
