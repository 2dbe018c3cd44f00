import { expect } from 'chai';
import { createSharedText } from '../../../src/io/opamp/sharedText.ts';

// JavaScript cannot tell two equal strings apart, so what the table holds is observed through held().

describe('shared config bodies', () => {
  it('holds one copy of a text however often it is reported', () => {
    const shared = createSharedText({ maxChars: 1000, maxTextChars: 100 });
    for (let i = 0; i < 50; i++)
      expect(shared.share(`receivers: {otlp: {}}`)).to.equal('receivers: {otlp: {}}');
    expect(shared.held()).to.equal('receivers: {otlp: {}}'.length);
    shared.share('exporters: {}');
    expect(shared.held()).to.equal('receivers: {otlp: {}}'.length + 'exporters: {}'.length);
  });

  it('keeps empty texts and texts longer than maxTextChars out of the table', () => {
    const shared = createSharedText({ maxChars: 1000, maxTextChars: 4 });
    expect(shared.share('abcdefgh')).to.equal('abcdefgh');
    expect(shared.share('')).to.equal('');
    expect(shared.held()).to.equal(0);
  });

  it('never holds more than two generations of maxChars', () => {
    const shared = createSharedText({ maxChars: 10, maxTextChars: 10 });
    shared.share('aaaaaaaaaa');
    shared.share('bbbbbbbbbb'); // the first generation is full: a moves to the previous one
    expect(shared.held()).to.equal(20);
    shared.share('aaaaaaaaaa'); // found in the previous generation and carried into a new current one
    expect(shared.held()).to.equal(20);
    for (const c of 'cdefgh') shared.share(c.repeat(10));
    expect(shared.held()).to.equal(20);
  });
});
