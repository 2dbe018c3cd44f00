import { expect } from 'chai';
import { revisionDiff } from '../../../src/web/pages/revisionDiff.ts';
import { revision } from './configFixture.ts';

describe('revisionDiff', () => {
  it('lists the settings that changed beside the body diff', () => {
    const diff = revisionDiff(revision(1), revision(2, { selector: 'env=dev', enabled: false }));
    expect(diff.settings).to.deep.equal([
      { setting: 'Selector', from: 'env=prod', to: 'env=dev' },
      { setting: 'Enabled', from: 'yes', to: 'no' },
    ]);
    expect(diff).to.include({ from: 1, to: 2, added: 1, removed: 1, sameBody: false, message: '' });
  });

  it('says when the bodies are the same (a restore, or a change of settings only)', () => {
    const diff = revisionDiff(revision(1), revision(3, { body: revision(1).body, bodyHash: 'hash-1' }));
    expect(diff).to.include({ sameBody: true, added: 0, removed: 0 });
    expect(diff.rows).to.deep.equal([]);
  });

  it('has nothing to compare the first revision with', () => {
    expect(revisionDiff(undefined, revision(1)).message).to.match(/Revision 1 is the first/);
  });
});
