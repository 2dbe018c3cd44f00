import { expect } from 'chai';
import fc from 'fast-check';
import { lineDiff, type DiffRow } from '../../../src/web/pages/lineDiff.ts';

const rowsOf = (from: string, to: string, context = 3): readonly DiffRow[] => {
  const diff = lineDiff(from, to, { context });
  if (!diff.ok) throw new Error(diff.reason);
  return diff.rows;
};
const lines = (n: number, prefix = 'line') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}\n`).join('');

describe('lineDiff', () => {
  it('gives no rows for identical bodies', () => {
    expect(lineDiff('a: 1\n', 'a: 1\n')).to.deep.equal({ ok: true, rows: [], added: 0, removed: 0 });
  });

  it('numbers removed lines in the old body, added lines in the new one, context in both', () => {
    const rows = rowsOf('a: 1\nb: 2\nc: 3\n', 'a: 1\nb: 20\nc: 3\nd: 4\n');
    expect(rows.map((r) => [r.kind, r.oldNo, r.newNo, r.text])).to.deep.equal([
      ['hunk', null, null, '@@ -1,3 +1,4 @@'],
      ['ctx', 1, 1, 'a: 1'],
      ['del', 2, null, 'b: 2'],
      ['add', null, 2, 'b: 20'],
      ['ctx', 3, 3, 'c: 3'],
      ['add', null, 4, 'd: 4'],
    ]);
    expect(lineDiff('a: 1\nb: 2\nc: 3\n', 'a: 1\nb: 20\nc: 3\nd: 4\n')).to.include({ added: 2, removed: 1 });
  });

  it('shows only a few unchanged lines around each change, in separate hunks', () => {
    const from = lines(30);
    const to = from.replace('line5\n', 'five\n').replace('line25\n', 'twenty-five\n');
    const rows = rowsOf(from, to, 2);
    expect(rows.filter((r) => r.kind === 'hunk').map((r) => r.text)).to.deep.equal([
      '@@ -3,5 +3,5 @@',
      '@@ -23,5 +23,5 @@',
    ]);
    expect(rows.filter((r) => r.kind === 'ctx')).to.have.length(8);
  });

  it('notes a missing newline at the end instead of showing it as a changed character', () => {
    const rows = rowsOf('a: 1\n', 'a: 1');
    expect(rows.map((r) => r.kind)).to.deep.equal(['hunk', 'del', 'add', 'note']);
    expect(rows.at(-1)?.text).to.equal('No newline at end of file');
  });

  it('refuses bodies that differ in more lines than the limit instead of computing a huge diff', () => {
    const diff = lineDiff(lines(300, 'a'), lines(300, 'b'), { maxEditLength: 100 });
    expect(diff.ok).to.equal(false);
    expect(diff.ok ? '' : diff.reason).to.match(/more than 100 lines/);
  });

  it('accounts for every line of both bodies with full context', () => {
    const body = fc.array(fc.constantFrom('a', 'b', 'c', 'd: 1', ''), { maxLength: 12 });
    fc.assert(
      fc.property(body, body, (a, b) => {
        const from = a.map((l) => `${l}\n`).join('');
        const to = b.map((l) => `${l}\n`).join('');
        const rows = rowsOf(from, to, Number.MAX_SAFE_INTEGER);
        const old = rows.filter((r) => r.oldNo !== null).map((r) => `${r.text}\n`);
        const next = rows.filter((r) => r.newNo !== null).map((r) => `${r.text}\n`);
        if (from !== to) {
          expect(old.join('')).to.equal(from);
          expect(next.join('')).to.equal(to);
        }
      }),
      { numRuns: 200 },
    );
  });
});
