import { expect } from 'chai';
import { rfc3339FromMs, rfc3339FromNanos } from '../../../src/web/views/time.ts';

describe('view timestamps', () => {
  const cases: [bigint, string | null][] = [
    [0n, null],
    [1_714_557_600_000_000_000n, '2024-05-01T10:00:00Z'],
    [1_714_557_600_123_456_789n, '2024-05-01T10:00:00.123456789Z'],
    [1_714_557_600_120_000_000n, '2024-05-01T10:00:00.12Z'],
    [1_714_557_600_000_000_001n, '2024-05-01T10:00:00.000000001Z'],
  ];
  for (const [nanos, text] of cases) {
    it(`renders ${nanos} ns as ${String(text)}`, () => {
      expect(rfc3339FromNanos(nanos)).to.equal(text);
    });
  }
  it('renders milliseconds as RFC 3339 UTC and never-set as null', () => {
    expect(rfc3339FromMs(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).to.equal('2026-01-02T03:04:05.006Z');
    expect(rfc3339FromMs(null)).to.equal(null);
  });
  it('renders the largest uint64 nanosecond time without losing digits', () => {
    expect(rfc3339FromNanos(2n ** 64n - 1n)).to.equal('2554-07-21T23:34:33.709551615Z');
  });
  it('renders an out-of-range millisecond time as null rather than throwing', () => {
    expect(rfc3339FromMs(8.64e15 + 1)).to.equal(null);
  });
});
