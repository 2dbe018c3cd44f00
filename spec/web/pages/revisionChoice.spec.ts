import { expect } from 'chai';
import { chooseRevisions } from '../../../src/web/pages/revisionChoice.ts';

const choose = (query: string, revisions = [4, 3, 2, 1], current: number | null = 3) =>
  chooseRevisions(new URLSearchParams(query), revisions, current);

describe('chooseRevisions', () => {
  it('compares the revision before the current one with the current one by default', () => {
    expect(choose('', [3, 2, 1])).to.deep.equal({ ok: true, from: 2, to: 3 });
  });

  it('compares the revision in force with a newer draft by default, older → newer', () => {
    expect(choose('')).to.deep.equal({ ok: true, from: 3, to: 4 });
    expect(choose('', [2, 1], 1)).to.deep.equal({ ok: true, from: 1, to: 2 });
  });

  it('compares with the newest revision when none is current', () => {
    expect(choose('', [2, 1], null)).to.deep.equal({ ok: true, from: 1, to: 2 });
  });

  it('has nothing to compare a first revision with', () => {
    expect(choose('', [1], 1)).to.deep.equal({ ok: true, from: undefined, to: 1 });
  });

  it('takes any two revisions, in either order, and the one before `to` when `from` is missing', () => {
    expect(choose('from=1&to=4')).to.deep.equal({ ok: true, from: 1, to: 4 });
    expect(choose('from=4&to=1')).to.deep.equal({ ok: true, from: 4, to: 1 });
    expect(choose('to=4')).to.deep.equal({ ok: true, from: 3, to: 4 });
    expect(choose('from=1')).to.deep.equal({ ok: true, from: 1, to: 4 });
    expect(choose('from=&to=')).to.deep.equal({ ok: true, from: 3, to: 4 });
  });

  it('skips revision numbers the history does not hold', () => {
    expect(choose('to=5', [5, 2], 5)).to.deep.equal({ ok: true, from: 2, to: 5 });
  });

  it('refuses numbers that are no revision of the config, and repeated or malformed ones', () => {
    expect(choose('to=9')).to.deep.equal({ ok: false, error: 'there is no revision 9' });
    expect(choose('from=x')).to.deep.equal({ ok: false, error: 'from must be a revision number, got "x"' });
    expect(choose('from=0').ok).to.equal(false);
    expect(choose('from=1.5').ok).to.equal(false);
    expect(choose('to=1&to=2')).to.deep.equal({ ok: false, error: 'to may be given only once' });
  });
});
