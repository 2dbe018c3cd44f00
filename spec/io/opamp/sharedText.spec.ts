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

describe('shared config bodies from bytes', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it('decodes a body once while it stays among the recent ones', () => {
    const shared = createSharedText({ maxChars: 1000, maxTextChars: 100 });
    for (let i = 0; i < 50; i++)
      expect(shared.shareUtf8(encode('receivers: {otlp: {}}'))).to.equal('receivers: {otlp: {}}');
    expect(shared.decodes()).to.equal(1);
    expect(shared.held()).to.equal('receivers: {otlp: {}}'.length);
  });

  it('tells apart bodies of the same length that differ in one byte', () => {
    const shared = createSharedText({ maxChars: 1000, maxTextChars: 100 });
    expect(shared.shareUtf8(encode('batch: 8192'))).to.equal('batch: 8192');
    expect(shared.shareUtf8(encode('batch: 8193'))).to.equal('batch: 8193');
    expect(shared.shareUtf8(encode('batch: 8192'))).to.equal('batch: 8192');
    expect(shared.decodes()).to.equal(2);
  });

  it('keeps its own copy of the bytes, not a view of the buffer they came in', () => {
    const shared = createSharedText({ maxChars: 1000, maxTextChars: 100 });
    const read = Buffer.from('exporters: {a: {}}');
    expect(shared.shareUtf8(read)).to.equal('exporters: {a: {}}');
    read.write('b', 'exporters: {'.length); // the read buffer is reused for the next message
    expect(shared.shareUtf8(read)).to.equal('exporters: {b: {}}');
  });

  it('decodes invalid UTF-8 with replacement characters, as a lenient decoder does', () => {
    const shared = createSharedText({ maxChars: 1000, maxTextChars: 100 });
    const bytes = Uint8Array.of(0x61, 0xff, 0x62);
    expect(shared.shareUtf8(bytes)).to.equal('a\ufffdb');
    expect(shared.shareUtf8(bytes)).to.equal('a\ufffdb');
  });

  it('remembers the last eight distinct bodies as bytes', () => {
    const shared = createSharedText({ maxChars: 10_000, maxTextChars: 100 });
    const bodies = Array.from({ length: 9 }, (_, i) => encode(`config ${i}`));
    for (const body of bodies) shared.shareUtf8(body);
    expect(shared.decodes()).to.equal(9);
    for (const body of bodies.slice(1)) shared.shareUtf8(body); // the eight most recent
    expect(shared.decodes()).to.equal(9);
    shared.shareUtf8(bodies[0]!); // pushed out by the ninth
    expect(shared.decodes()).to.equal(10);
  });
});
