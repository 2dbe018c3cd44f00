import { expect } from 'chai';
import { codeView, maxShownBytes } from '../../../src/web/pages/codeView.ts';
import { detectLanguage, maxHighlightBytes } from '../../../src/web/pages/highlight.ts';

// What bounds the work of showing a body an agent reported: every step after the cut sees only the
// part shown. Each case puts something in the tail that would change the outcome if it were read.
describe('code view of a body larger than a page shows', () => {
  const head = 'plain words\n'.repeat(Math.ceil(maxShownBytes / 12));
  const tail = 'receivers:\n  otlp:\npassword: hunter2\n'.repeat(1000);
  const body = head + tail;

  it('guesses the language, redacts and highlights only the part shown', () => {
    const view = codeView('', '', body, false);
    expect(view.language).to.equal('text');
    expect(view.redacted).to.equal(0);
    const shown = view.tokens.map((t) => t.v).join('');
    expect(shown.length).to.be.at.most(maxShownBytes);
    expect(head.startsWith(shown)).to.equal(true);
    expect(view.shownBytes).to.equal(shown.length);
    expect(view.bytes).to.equal(body.length);
  });

  it('cuts at the last line end within the bound', () => {
    const shown = codeView('', '', body, true)
      .tokens.map((t) => t.v)
      .join('');
    expect(shown.endsWith('\n')).to.equal(true);
    expect(maxShownBytes - shown.length).to.be.below('plain words\n'.length);
  });

  it('shows a body of maxShownBytes whole', () => {
    const whole = 'a: 1\n'.repeat(maxShownBytes / 5);
    const view = codeView('c.yaml', '', whole, true);
    expect(view.shownBytes).to.equal(undefined);
    expect(view.tokens.map((t) => t.v).join('')).to.equal(whole);
  });

  it('calls a body past the highlight limit text before looking at it', () => {
    const yaml = 'receivers:\n'.repeat(Math.ceil(maxHighlightBytes / 11) + 1);
    expect(detectLanguage('', '', yaml.slice(0, maxHighlightBytes))).to.equal('yaml');
    expect(detectLanguage('', '', yaml)).to.equal('text');
  });
});
