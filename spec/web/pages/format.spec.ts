import { expect } from 'chai';
import { duration, relative, shortId, toMs, utc } from '../../../src/web/pages/format.ts';

const t0 = Date.UTC(2026, 4, 1, 10, 0, 0);

describe('page formatting helpers', () => {
  it('formats exact times in UTC from milliseconds or RFC 3339 text', () => {
    expect(utc(t0)).to.equal('2026-05-01 10:00:00 UTC');
    expect(utc('2026-05-01T10:00:00.123Z')).to.equal('2026-05-01 10:00:00 UTC');
  });

  it('shows a dash for a time never set instead of a 1970 date', () => {
    expect(utc(null)).to.equal('—');
    expect(utc(0)).to.equal('—');
    expect(toMs('not a time')).to.equal(null);
  });

  it('describes times relative to the given now', () => {
    expect(relative(t0, t0 + 400)).to.equal('just now');
    expect(relative(t0, t0 + 12_000)).to.equal('12s ago');
    expect(relative(t0, t0 + 5 * 60_000 + 3_000)).to.equal('5m ago');
    expect(relative(t0, t0 + 3 * 3_600_000)).to.equal('3h ago');
    expect(relative(t0, t0 + 50 * 3_600_000)).to.equal('2d ago');
    expect(relative(t0 + 3_000, t0)).to.equal('in 3s');
    expect(relative(null, t0)).to.equal('never');
  });

  it('formats durations compactly', () => {
    expect(duration(45_000)).to.equal('45s');
    expect(duration(12 * 60_000 + 5_000)).to.equal('12m 5s');
    expect(duration((3 * 60 + 4) * 60_000)).to.equal('3h 4m');
    expect(duration((2 * 24 + 5) * 3_600_000)).to.equal('2d 5h');
  });

  it('shortens UUIDs to their first block and ULIDs to ten characters', () => {
    expect(shortId('0190f1c2-aaaa-7bbb-8ccc-000000000001')).to.equal('0190f1c2');
    expect(shortId('01ARZ3NDEKTSV4RRFFQ69G5FAV')).to.equal('01ARZ3NDEK');
  });
});
