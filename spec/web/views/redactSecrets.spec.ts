import { expect } from 'chai';
import fc from 'fast-check';
import { parseBudget, redactSecrets } from '../../../src/web/views/redactSecrets.ts';

const shown = (body: string) => redactSecrets(body).text;

describe('redacting secrets in config bodies', () => {
  it('hides the values of secret-looking keys in block YAML and keeps the rest', () => {
    const body = [
      'exporters:',
      '  otlphttp:',
      '    endpoint: https://collector.example:4318',
      '    headers:',
      '      Authorization: Bearer abc123',
      '      x-api-key: "k-42" # rotated monthly',
      '  kafka:',
      '    auth:',
      '      sasl: { username: u, password: hunter2, mechanism: PLAIN }',
      '    client_secret: s3cr3t',
      '    private_key: |',
      '      -----BEGIN PRIVATE KEY-----',
      '      MIIE...',
      '    tls: { insecure: false }',
    ].join('\n');
    const text = shown(body);
    expect(text).to.not.match(/abc123|k-42|hunter2|s3cr3t|MIIE|BEGIN PRIVATE/);
    expect(text).to.include('endpoint: https://collector.example:4318');
    expect(text).to.include('Authorization: <redacted>');
    expect(text).to.include('x-api-key: "<redacted>" # rotated monthly');
    expect(text).to.include('{ username: u, password: <redacted>, mechanism: PLAIN }');
    expect(text).to.include('    tls: { insecure: false }');
    // The block scalar is one value, whatever its lines.
    expect(redactSecrets(body).redacted).to.equal(5);
  });

  it("leaves the Collector's environment references as they are", () => {
    const body = 'password: ${env:DB_PASSWORD}\nauthorization: "Bearer ${env:TOKEN}"\ntoken: ${TOKEN}x\n';
    expect(shown(body)).to.equal(
      'password: ${env:DB_PASSWORD}\nauthorization: "Bearer ${env:TOKEN}"\ntoken: <redacted>\n',
    );
  });

  it('hides secrets in pretty and in minified JSON', () => {
    expect(shown('{\n  "api_key": "abc",\n  "port": 4317,\n  "token": 12\n}')).to.equal(
      '{\n  "api_key": "<redacted>",\n  "port": 4317,\n  "token": <redacted>\n}',
    );
    expect(shown('{"user":"u","password":"p\\"w","nested":{"secret":{"a":1}},"n":1}')).to.equal(
      '{"user":"u","password":"<redacted>","nested":{"secret":{"a":<redacted>}},"n":1}',
    );
  });

  it('changes nothing in a body without secrets (same string back)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (body) => {
        const r = redactSecrets(body);
        if (r.redacted === 0) expect(r.text).to.equal(body);
        expect(r.text.split('\n').length).to.equal(body.split('\n').length);
      }),
      { numRuns: 500 },
    );
  });

  it('answers for 1 MiB hostile bodies', () => {
    for (const body of ['"'.repeat(1 << 20), 'password:\n'.repeat(1 << 17), `a: ${'{'.repeat(1 << 20)}`, '${'.repeat(1 << 19)])
      expect(redactSecrets(body).text.length).to.be.greaterThan(0);
  });

  it('fails closed once the bodies of one response have used its parse budget', () => {
    const body = 'password: hunter2\nuser: u\n';
    const budget = parseBudget(body.length + 10);
    expect(redactSecrets(body, budget).text).to.equal('password: <redacted>\nuser: u\n');
    expect(redactSecrets(body, budget).text).to.equal('password: <redacted>\n<redacted>\n');
    expect(redactSecrets(body).text).to.equal('password: <redacted>\nuser: u\n');
  });
});
