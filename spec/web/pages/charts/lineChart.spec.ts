import { expect } from 'chai';
import {
  layoutChart,
  niceCeiling,
  spanLabel,
  tickLabel,
} from '../../../../src/web/pages/charts/lineChart.ts';

describe('lineChart', () => {
  it('ends the y scale on a round number at or above the largest value', () => {
    expect(niceCeiling(0)).to.equal(1);
    expect(niceCeiling(3, 4)).to.equal(4);
    expect(niceCeiling(7)).to.equal(8);
    expect(niceCeiling(101)).to.equal(200);
    expect(niceCeiling(230)).to.equal(400);
    expect(niceCeiling(601)).to.equal(800);
    expect(niceCeiling(0.03, 0.1)).to.equal(0.1);
    expect(niceCeiling(100_000)).to.equal(100_000);
  });

  it('labels ticks briefly', () => {
    expect(tickLabel(5)).to.equal('5');
    expect(tickLabel(50_000)).to.equal('50k');
    expect(tickLabel(0.125)).to.equal('0.13');
    expect(spanLabel(3_600_000)).to.equal('60 min');
    expect(spanLabel(86_400_000)).to.equal('24 h');
  });

  it('places samples by time across the window, zero at the bottom and the ceiling at the top', () => {
    const g = layoutChart({
      at: [0, 1_800_000, 3_600_000],
      lines: [{ key: 'size', values: [0, 2, 4] }],
      end: 3_600_000,
      spanMs: 3_600_000,
      stepMs: 1_800_000,
    });
    const { left, right, top, bottom } = g.plot;
    expect(g.paths[0]!.d).to.equal(
      `M${left.toFixed(1)} ${bottom.toFixed(1)} L${((left + right) / 2).toFixed(1)} ${((top + bottom) / 2).toFixed(1)} L${right.toFixed(1)} ${top.toFixed(1)}`,
    );
    expect(g.yTicks.map((t) => t.label)).to.deep.equal(['0', '2', '4']);
    expect(g.xTicks.map((t) => t.label)).to.deep.equal(['−60 min', '−30 min', 'now']);
  });

  it('breaks the line where samples are missing (a restart, a stalled sampler)', () => {
    const g = layoutChart({
      at: [0, 10, 50, 60],
      lines: [{ key: 'size', values: [1, 1, 1, 1] }],
      end: 60,
      spanMs: 60,
      stepMs: 10,
    });
    expect(g.paths[0]!.d.match(/M/g)).to.have.length(2);
  });

  it('keeps samples older than the window at its left edge', () => {
    const g = layoutChart({
      at: [-500, 0],
      lines: [{ key: 'x', values: [1, 1] }],
      end: 100,
      spanMs: 100,
      stepMs: 500,
    });
    expect(g.paths[0]!.d.startsWith(`M${g.plot.left.toFixed(1)} `)).to.equal(true);
  });
});
