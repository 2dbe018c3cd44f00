import { expect } from 'chai';
import { parseMatcher, type Matcher } from '../../../src/projections/filter/matcher.ts';

describe('parseMatcher', () => {
  const accepted: [string, Matcher][] = [
    ['env=prod', { key: 'env', op: '=', value: 'prod' }],
    ['env!=prod', { key: 'env', op: '!=', value: 'prod' }],
    ['env=~pro.*', { key: 'env', op: '=~', value: 'pro.*' }],
    ['env!~pro.*', { key: 'env', op: '!~', value: 'pro.*' }],
    ['env = prod', { key: 'env', op: '=', value: 'prod' }],
    ['  env  =~  pro.*  ', { key: 'env', op: '=~', value: 'pro.*' }],
    ['env="prod"', { key: 'env', op: '=', value: 'prod' }],
    ["env='prod'", { key: 'env', op: '=', value: 'prod' }],
    ['env=" padded "', { key: 'env', op: '=', value: ' padded ' }],
    ['env=""', { key: 'env', op: '=', value: '' }],
    ['env=', { key: 'env', op: '=', value: '' }],
    ['env=~"a|b"', { key: 'env', op: '=~', value: 'a|b' }],
    ['env=~"\\d+\\.\\d+"', { key: 'env', op: '=~', value: '\\d+\\.\\d+' }],
    ['msg="say "hi""', { key: 'msg', op: '=', value: 'say "hi"' }],
    ["msg=it's", { key: 'msg', op: '=', value: "it's" }],
    ['a=b=c', { key: 'a', op: '=', value: 'b=c' }],
    ['a=!=b', { key: 'a', op: '=', value: '!=b' }],
    ['service.name=~otel-.*', { key: 'service.name', op: '=~', value: 'otel-.*' }],
    ['k!x=1', { key: 'k!x', op: '=', value: '1' }],
    ['healthy=true', { key: 'healthy', op: '=', value: 'true' }],
  ];
  for (const [text, expected] of accepted) {
    it(`parses ${JSON.stringify(text)}`, () => {
      expect(parseMatcher(text)).to.deep.equal({ ok: true, value: expected });
    });
  }

  const rejected: [string, RegExp][] = [
    ['env', /no operator/],
    ['', /no operator/],
    ['=prod', /no attribute key/],
    ['  !=prod', /no attribute key/],
    ['env="prod', /unterminated " quote/],
    ["env='prod", /unterminated ' quote/],
    ['env="', /unterminated " quote/],
    ['env=~\'a"', /unterminated ' quote/],
  ];
  for (const [text, message] of rejected) {
    it(`rejects ${JSON.stringify(text)} saying what is wrong`, () => {
      const parsed = parseMatcher(text);
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.error).to.match(message);
    });
  }
});
