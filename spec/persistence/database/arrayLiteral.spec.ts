import { expect } from 'chai';
import fc from 'fast-check';
import { arrayLiteral } from '../../../src/persistence/database/arrayLiteral.ts';

/** The literal element by element, as PostgreSQL's array input reads it. */
function reference(values: readonly (string | number | boolean | null)[]): string {
  const element = (v: string | number | boolean | null) =>
    v === null
      ? 'NULL'
      : typeof v === 'number'
        ? String(v)
        : typeof v === 'boolean'
          ? v
            ? 't'
            : 'f'
          : `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  return `{${values.map(element).join(',')}}`;
}

describe('array literals', () => {
  it('builds all-string and all-number columns in one pass with the same text as element by element', () => {
    expect(arrayLiteral(['a', '', 'NULL', '{x,y}'])).to.equal('{"a","","NULL","{x,y}"}');
    expect(arrayLiteral([1.5, 0, -2, 1e21])).to.equal('{1.5,0,-2,1e+21}');
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom('"', '\\', 'a"b', 'c\\d'),
      fc.double({ noNaN: true }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const columns = fc.oneof(fc.array(fc.string()), fc.array(fc.double({ noNaN: true })), fc.array(value));
    fc.assert(
      fc.property(columns, (values) => {
        expect(arrayLiteral(values)).to.equal(reference(values));
      }),
    );
  });
});
