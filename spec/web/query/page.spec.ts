import { expect } from 'chai';
import { parsePage } from '../../../src/web/query/page.ts';

describe('parsePage', () => {
  const accepted: [string, { limit: number; offset: number }][] = [
    ['', { limit: 100, offset: 0 }],
    ['limit=1', { limit: 1, offset: 0 }],
    ['limit=1000&offset=5', { limit: 1000, offset: 5 }],
    ['offset=0', { limit: 100, offset: 0 }],
    ['offset=123456789', { limit: 100, offset: 123456789 }],
  ];
  for (const [query, page] of accepted) {
    it(`accepts ${query || '(empty)'}`, () => {
      expect(parsePage(new URLSearchParams(query))).to.deep.equal({ ok: true, page });
    });
  }
  const rejected: [string, RegExp][] = [
    ['limit=0', /limit must be an integer from 1 to 1000, got "0"/],
    ['limit=1001', /limit must be an integer from 1 to 1000/],
    ['limit=-1', /limit must be/],
    ['limit=abc', /limit must be/],
    ['limit=', /limit must be/],
    ['limit=1e2', /limit must be/],
    ['limit=5.0', /limit must be/],
    ['limit=+5', /limit must be/],
    ['limit=%205', /limit must be/],
    ['offset=-1', /offset must be an integer ≥ 0, got "-1"/],
    ['offset=x', /offset must be/],
    ['offset=99999999999999999999', /offset must be/],
    ['limit=1&limit=2', /limit may be given only once/],
  ];
  for (const [query, message] of rejected) {
    it(`rejects ${query}`, () => {
      const parsed = parsePage(new URLSearchParams(query));
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.error).to.match(message);
    });
  }
});
