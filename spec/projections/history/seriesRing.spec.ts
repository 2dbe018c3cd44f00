import { expect } from 'chai';
import { historyBytes } from '../../../src/projections/history/fleetHistory.ts';
import { createSeriesRing, ringBytes } from '../../../src/projections/history/seriesRing.ts';

describe('seriesRing', () => {
  it('reads what was pushed, oldest first, column by column', () => {
    const ring = createSeriesRing(4, 2);
    ring.push(10, [1, 2]);
    ring.push(20, [3, 4]);
    expect(ring.read()).to.deep.equal({
      at: [10, 20],
      columns: [
        [1, 3],
        [2, 4],
      ],
    });
  });

  it('overwrites the oldest sample once full, so it never holds more than its capacity', () => {
    const ring = createSeriesRing(3, 1);
    for (let i = 1; i <= 7; i++) ring.push(i, [i * 10]);
    expect(ring.length).to.equal(3);
    expect(ring.read()).to.deep.equal({ at: [5, 6, 7], columns: [[50, 60, 70]] });
  });

  it('costs its slots × (columns + a time) × 8 bytes', () => {
    expect(ringBytes(360, 12)).to.equal(360 * 13 * 8);
  });

  it('gives the fleet history the fixed footprint docs/ui.md states', () => {
    expect(historyBytes).to.equal(77_872);
  });
});
