import { expect } from 'chai';
import { toJson } from '../../../src/web/views/json.ts';

describe('toJson', () => {
  it('writes the largest unsigned 64-bit value as a bare number with every digit', () => {
    expect(toJson({ capabilities: 18446744073709551615n })).to.equal('{"capabilities":18446744073709551615}');
  });
  it('writes bigints inside arrays and nested objects', () => {
    expect(toJson({ a: [1n, { b: 9007199254740993n }] })).to.equal('{"a":[1,{"b":9007199254740993}]}');
  });
  it('leaves strings that look like numbers as strings', () => {
    expect(toJson({ s: '123', n: null })).to.equal('{"s":"123","n":null}');
  });
});
