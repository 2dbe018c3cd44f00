// The configs redaction used to miss or mangle when it read lines (issue: realistic configs shown
// whole to viewers, the Collector's `bearertokenauth` extension replaced whole). Each case is a
// body as operators write them; the secret must go, and what is around it must stay as written.

import { expect } from 'chai';
import { redactSecrets } from '../../../src/web/views/redactSecrets.ts';

const shown = (body: string) => redactSecrets(body).text;
const lines = (...l: string[]) => l.join('\n');

describe('redaction reads the config, not its lines', () => {
  it('hides a multi-line quoted key_pem under tls and keeps the line count', () => {
    const body = lines('tls:', '  key_pem: "-----BEGIN PRIVATE KEY-----', '    MIIEsecret', '    -----END PRIVATE KEY-----"', '  cert_file: /c.pem', '');
    const text = shown(body);
    expect(text).to.not.match(/MIIEsecret|BEGIN PRIVATE/);
    expect(text).to.include('  key_pem: "<redacted>"').and.include('  cert_file: /c.pem');
    expect(text.split('\n')).to.have.length(body.split('\n').length);
  });

  it('hides each item of a sequence under a secret key at the same indent', () => {
    expect(shown(lines('tokens:', '- tok-one', '- tok-two', 'other: x'))).to.equal(
      lines('tokens:', '- <redacted>', '- <redacted>', 'other: x'),
    );
  });

  it('hides the values of a multi-line JSON object under a secret key and keeps its keys', () => {
    expect(shown(lines('{', '  "client_secret": {', '    "value": "cs-123"', '  },', '  "n": 1', '}'))).to.equal(
      lines('{', '  "client_secret": {', '    "value": "<redacted>"', '  },', '  "n": 1', '}'),
    );
  });

  it('hides a plain and a quoted scalar continued on the next line', () => {
    expect(shown(lines('password: first-half', '  second-half # note', 'next: 1'))).to.equal(
      lines('password: <redacted>', ' # note', 'next: 1'),
    );
    expect(shown(lines("secret: 'one", "  two'", 'next: 1'))).to.equal(lines("secret: '<redacted>'", '', 'next: 1'));
  });

  it('hides the value of an anchor whose alias sits under a secret key, where the anchor is written', () => {
    const text = shown(lines('defaults: &pw hunter2', 'db:', '  password: *pw', ''));
    expect(text).to.equal(lines('defaults: &pw <redacted>', 'db:', '  password: *pw', ''));
    expect(shown(lines('common: &c { user: u, pass: p1 }', 'credentials: *c'))).to.equal(
      lines('common: &c { user: <redacted>, pass: <redacted> }', 'credentials: *c'),
    );
  });

  it('follows an alias to the anchor it named where it is written, even if the name is defined again', () => {
    const body = lines('first: &a s-one', 'group: &g [*a]', 'again: &a kept-two', 'password: *g', '');
    expect(shown(body)).to.equal(lines('first: &a <redacted>', 'group: &g [*a]', 'again: &a kept-two', 'password: *g', ''));
  });

  it('hides a URL whole when its anchor is aliased under a secret key', () => {
    expect(shown(lines('endpoint: &e https://u:p@host', 'password: *e'))).to.equal(
      lines('endpoint: &e <redacted>', 'password: *e'),
    );
  });

  it('reads an escaped key by its parsed value', () => {
    expect(shown(lines('"pass\\u0077ord": hunter2', 'user: u'))).to.equal(lines('"pass\\u0077ord": <redacted>', 'user: u'));
    expect(shown('{"pass\\u0077ord": "hunter2", "user": "u"}')).to.equal('{"pass\\u0077ord": "<redacted>", "user": "u"}');
  });

  it('hides the credentials of a URL whatever its key, and keeps the rest of the URL', () => {
    expect(shown(lines('endpoint: https://user:s3cret@collector:4318/v1', 'proxy: "http://tok3n@proxy:3128"'))).to.equal(
      lines('endpoint: https://user:<redacted>@collector:4318/v1', 'proxy: "http://<redacted>@proxy:3128"'),
    );
  });

  it('hides `key` under api or tls, and only there', () => {
    expect(shown(lines('api:', '  key: k-123', 'tls:', '  key: k-456', 'attributes:', '  key: service.name'))).to.equal(
      lines('api:', '  key: <redacted>', 'tls:', '  key: <redacted>', 'attributes:', '  key: service.name'),
    );
  });

  it("keeps the structure of the Collector's bearertokenauth extension and hides its token", () => {
    const body = lines(
      'extensions:',
      '  bearertokenauth:',
      '    scheme: Bearer',
      '    token: live-token-1',
      '  bearertokenauth/file:',
      '    filename: /run/token',
      'service:',
      '  extensions: [bearertokenauth, bearertokenauth/file]',
    );
    expect(shown(body)).to.equal(body.replace('live-token-1', '<redacted>'));
  });

  it('matches whole words of a key, in any spelling', () => {
    const body = lines('x-api-key: a1', 'accessToken: a2', 'AWS_SECRET_ACCESS_KEY: a3', 'private-key: a4', 'keyspace: k', 'tokenizer: t', 'password2: a5');
    expect(shown(body)).to.equal(
      lines('x-api-key: <redacted>', 'accessToken: <redacted>', 'AWS_SECRET_ACCESS_KEY: <redacted>', 'private-key: <redacted>', 'keyspace: k', 'tokenizer: t', 'password2: <redacted>'),
    );
  });

  it('fails closed on text that does not parse: everything from the first secret word on is hidden', () => {
    const text = shown(lines('receivers: [otlp', 'endpoint: 0.0.0.0:4317', 'password: hunter2', 'other: visible?', ''));
    expect(text).to.equal(lines('receivers: [otlp', 'endpoint: 0.0.0.0:4317', 'password: <redacted>', '<redacted>', ''));
    expect(shown(lines('user=u', 'password=hunter2', 'port=1'))).to.equal(lines('user=u', 'password=<redacted>', '<redacted>'));
  });
});
