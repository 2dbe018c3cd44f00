// The config editor's form, read and checked as the JSON API checks a write: pure.

import { expect } from 'chai';
import { bodyHashOf } from '../../../src/projections/remoteConfig/desiredConfig.ts';
import { diffAgainst, documentOf, editOf, errorLine, previewOf } from '../../../src/web/pages/configEdit.ts';

const form = (fields: Record<string, string>) => editOf(new URLSearchParams(fields));

describe('configEdit', () => {
  it('reads a browser form: an unchecked box is disabled, CRLF line ends become LF, a bad base is none', () => {
    expect(
      form({ name: ' edge ', selector: 'a="b"', body: 'a: 1\r\nb: 2\r\n', revision: 'x' }),
    ).to.deep.equal({
      name: 'edge',
      selector: 'a="b"',
      contentType: 'text/yaml',
      enabled: false,
      body: 'a: 1\nb: 2\n',
      base: undefined,
    });
    expect(form({ enabled: 'true', revision: '7', content_type: 'application/json' })).to.include({
      enabled: true,
      base: 7,
      contentType: 'application/json',
    });
  });

  it('refuses what the API refuses: a bad name only for a new config, a bad selector, a body that does not parse', () => {
    const edit = form({ name: 'Bad Name', selector: 'a="b"', body: 'a: 1\n' });
    expect(documentOf(edit, true)).to.deep.include({ ok: false });
    expect(documentOf(edit, false)).to.deep.include({ ok: true });
    expect(documentOf(form({ selector: 'a=~"("', body: 'a: 1\n' }), false)).to.deep.include({ ok: false });
    const body = documentOf(form({ selector: 'a="b"', body: 'a: [\n' }), false);
    expect(body.ok ? '' : body.error).to.match(/^body does not parse as text\/yaml/);
  });

  it('previews the selector alone when the body does not parse', () => {
    const edit = form({ name: 'edge', selector: 'a="b"', body: 'a: [\n', enabled: 'true' });
    expect(previewOf(edit, false, true).ok).to.equal(false);
    expect(previewOf(edit, false, false)).to.deep.equal({
      ok: true,
      value: { name: 'edge', selector: 'a="b"', body: undefined, contentType: undefined, enabled: true },
    });
  });

  it("finds the line in js-yaml's and V8's parse errors", () => {
    expect(errorLine('body does not parse as text/yaml: bad indentation of a mapping entry (3:2)')).to.equal(
      3,
    );
    expect(
      errorLine("Expected ',' or '}' after property value in JSON at position 12 (line 2 column 5)"),
    ).to.equal(2);
    expect(errorLine('content_type "x" is not a media type')).to.equal(undefined);
  });

  it('compares a new config with an empty one, and an edit with the revision in force', () => {
    const edit = form({ name: 'edge', selector: 'a="b"', body: 'a: 1\n', enabled: 'true' });
    const fresh = diffAgainst(undefined, edit);
    expect(fresh).to.include({ added: 1, removed: 0 });
    expect(fresh.settings).to.deep.equal([{ setting: 'Selector', from: '', to: 'a="b"' }]);
    const inForce = {
      name: 'edge',
      revision: 4,
      selector: 'a="b"',
      body: 'a: 1\n',
      contentType: 'text/yaml',
      enabled: true,
      bodyHash: bodyHashOf('a: 1\n'),
      draft: false,
      author: 'ops',
      createdAt: 0,
      restoredFrom: null,
    };
    expect(diffAgainst(inForce, edit)).to.include({ from: 4, to: 5, sameBody: true });
  });
});
