import { expect } from 'chai';
import fc from 'fast-check';
import {
  detectLanguage,
  highlight,
  maxHighlightBytes,
  type Token,
} from '../../../src/web/pages/highlight.ts';

const text = (tokens: Token[]) => tokens.map((t) => t.v).join('');
const classesOf = (tokens: Token[], c: Token['c']) => tokens.filter((t) => t.c === c).map((t) => t.v);

describe('highlight', () => {
  it('gives back exactly the input text for any body, in every language', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (body) => {
        for (const lang of ['yaml', 'json', 'text'] as const)
          expect(text(highlight(body, lang))).to.equal(body);
      }),
      { numRuns: 300 },
    );
  });

  it('marks YAML keys, strings, numbers, literals and comments', () => {
    const body =
      'receivers: # inputs\n  otlp:\n    endpoint: "0.0.0.0:4317"\n    count: 12\n    enabled: true\n  - name: a\n';
    const tokens = highlight(body, 'yaml');
    expect(classesOf(tokens, 'key')).to.deep.equal([
      'receivers',
      'otlp',
      'endpoint',
      'count',
      'enabled',
      'name',
    ]);
    expect(classesOf(tokens, 'com')).to.deep.equal(['# inputs']);
    expect(classesOf(tokens, 'str')).to.include('"0.0.0.0:4317"');
    expect(classesOf(tokens, 'num')).to.deep.equal(['12']);
    expect(classesOf(tokens, 'lit')).to.deep.equal(['true']);
  });

  it('does not take a # inside a URL value for a comment', () => {
    const tokens = highlight('url: http://host/page#anchor\n', 'yaml');
    expect(classesOf(tokens, 'com')).to.deep.equal([]);
    expect(classesOf(tokens, 'str')).to.deep.equal(['http://host/page#anchor']);
  });

  it('tells JSON keys from string values', () => {
    const tokens = highlight('{"a": "b", "n": -1.5e3, "ok": false, "x": null}', 'json');
    expect(classesOf(tokens, 'key')).to.deep.equal(['"a"', '"n"', '"ok"', '"x"']);
    expect(classesOf(tokens, 'str')).to.deep.equal(['"b"']);
    expect(classesOf(tokens, 'num')).to.deep.equal(['-1.5e3']);
    expect(classesOf(tokens, 'lit')).to.deep.equal(['false', 'null']);
  });

  it('scans long hostile lines in one pass (no backtracking on agent-supplied text)', () => {
    const line = `a${' '.repeat(maxHighlightBytes - 8)}x`;
    expect(text(highlight(line, 'yaml'))).to.equal(line);
    expect(classesOf(highlight('"quoted key" : v\n- item: 1', 'yaml'), 'key')).to.deep.equal([
      '"quoted key"',
      'item',
    ]);
  });

  it('leaves very large bodies as one plain token', () => {
    const body = 'a: 1\n'.repeat(maxHighlightBytes / 4);
    expect(highlight(body, 'yaml')).to.deep.equal([{ c: '', v: body }]);
  });

  it('detects the language from the content type, the file name, then the body', () => {
    expect(detectLanguage('', 'application/json', 'a: 1')).to.equal('json');
    expect(detectLanguage('config.yml', '', '{')).to.equal('yaml');
    expect(detectLanguage('', '', '  {"a":1}')).to.equal('json');
    expect(detectLanguage('', '', 'receivers:\n  otlp:')).to.equal('yaml');
    expect(detectLanguage('', '', 'plain words')).to.equal('text');
  });
});
