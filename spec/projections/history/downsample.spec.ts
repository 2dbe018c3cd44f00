import { expect } from 'chai';
import { addToBucket, emptyBucket, takeMean } from '../../../src/projections/history/downsample.ts';
import { createFleetHistory } from '../../../src/projections/history/fleetHistory.ts';
import { historySeries } from '../../../src/projections/history/fleetSample.ts';

describe('downsampling the last hour into the last 24 hours', () => {
  it('takes the mean of each column and empties the bucket', () => {
    const bucket = emptyBucket(2);
    addToBucket(bucket, [1, 10]);
    addToBucket(bucket, [2, 0]);
    addToBucket(bucket, [6, 2]);
    expect([...takeMean(bucket)]).to.deep.equal([3, 4]);
    expect(bucket.count).to.equal(0);
    expect([...takeMean(bucket)]).to.deep.equal([0, 0]);
  });

  it('adds a 24-hour point every 30 samples, stamped with the last of them', () => {
    const history = createFleetHistory();
    const sample = (v: number) => new Array<number>(historySeries.length).fill(v);
    for (let i = 1; i <= 59; i++) history.record(i * 10_000, sample(i));
    const coarse = history.read('24h');
    expect(coarse.at).to.deep.equal([300_000]);
    expect(coarse.columns[0]).to.deep.equal([15.5]);
    history.record(600_000, sample(60));
    expect(history.read('24h').columns[0]).to.deep.equal([15.5, 45.5]);
  });

  it('keeps one hour and 24 hours, dropping what is older', () => {
    const history = createFleetHistory();
    const zeros = new Array<number>(historySeries.length).fill(0);
    const samples = 8640 + 300; // a day and 50 minutes of 10 s samples
    for (let i = 1; i <= samples; i++) history.record(i * 10_000, zeros);
    const fine = history.read('1h');
    expect(fine.at.length).to.equal(360);
    expect(fine.at[0]).to.equal((samples - 359) * 10_000);
    const coarse = history.read('24h');
    expect(coarse.at.length).to.equal(288);
    expect(coarse.at.at(-1)).to.equal(samples * 10_000);
  });
});
