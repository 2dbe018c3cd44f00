import { expect } from 'chai';
import { createAcceptCache } from '../../../src/web/read/acceptCache.ts';

describe('accept cache: a matcher’s answers per distinct value, kept while the column grows', () => {
  const counting = (accept: (v: string | undefined) => boolean) => {
    const seen: (string | undefined)[] = [];
    return { seen, test: (v: string | undefined) => (seen.push(v), accept(v)) };
  };

  it('tests each value once, and only the values appended since', () => {
    const cache = createAcceptCache();
    const values: (string | undefined)[] = [undefined, 'a1', 'b1'];
    const { seen, test } = counting((v) => v?.startsWith('a') === true);
    expect([...cache.accepts(values, 'k=~a.*', test).subarray(0, 3)]).to.deep.equal([0, 1, 0]);
    expect([...cache.accepts(values, 'k=~a.*', test).subarray(0, 3)]).to.deep.equal([0, 1, 0]);
    values.push('a2', 'c', 'a3');
    expect([...cache.accepts(values, 'k=~a.*', test).subarray(0, 6)]).to.deep.equal([0, 1, 0, 1, 0, 1]);
    expect(seen).to.deep.equal([undefined, 'a1', 'b1', 'a2', 'c', 'a3']);
  });

  it('keeps matchers and columns apart', () => {
    const cache = createAcceptCache();
    const values = [undefined, 'x', 'y'];
    const other = [undefined, 'x', 'y'];
    expect([...cache.accepts(values, 'k="x"', (v) => v === 'x')]).to.deep.equal([0, 1, 0]);
    expect([...cache.accepts(values, 'k="y"', (v) => v === 'y')]).to.deep.equal([0, 0, 1]);
    expect([...cache.accepts(other, 'k="x"', (v) => v === 'y')], 'another column asks again').to.deep.equal([
      0, 0, 1,
    ]);
  });

  it('forgets the oldest matcher of a column past its bound', () => {
    const cache = createAcceptCache(2);
    const values = [undefined, 'x'];
    const first = counting(() => true);
    cache.accepts(values, 'one', first.test);
    cache.accepts(values, 'two', () => true);
    cache.accepts(values, 'three', () => true);
    cache.accepts(values, 'one', first.test);
    expect(first.seen, 'asked again after it was forgotten').to.have.length(4);
  });
});
