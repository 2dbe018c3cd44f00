import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/io/config/loadConfig.ts';
import { loadTlsMaterial } from '../../../src/io/tls/loadTls.ts';
import { createPki, type TestPki } from './testPki.ts';

function problemsOf(overrides: Record<string, unknown>): readonly string[] {
  try {
    loadConfig({ overrides });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('TLS files at startup', () => {
  let pki: TestPki;
  before(() => {
    pki = createPki();
  });
  after(() => pki.cleanup());

  it('loads a certificate, its key and a client CA', () => {
    const server = pki.server();
    const config = loadConfig({
      overrides: {
        ui_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: pki.ca.certFile },
      },
    });
    const tls = loadTlsMaterial(config);
    expect(tls.ui?.cert).to.equal(server.cert);
    expect(tls.ui?.ca).to.equal(pki.ca.cert);
    expect(tls.opamp).to.equal(undefined);
  });

  it('requires the certificate and the key together', () => {
    const server = pki.server();
    expect(problemsOf({ opamp_tls: { cert_file: server.certFile } }).join('\n')).to.match(
      /opamp_tls\.cert_file and opamp_tls\.key_file must be set together/,
    );
  });

  it('requires the certificate and key for a client CA', () => {
    expect(problemsOf({ telemetry_tls: { client_ca_file: pki.ca.certFile } }).join('\n')).to.match(
      /telemetry_tls\.client_ca_file requires telemetry_tls\.cert_file and telemetry_tls\.key_file/,
    );
  });

  it('names the key of a file that does not exist', () => {
    const server = pki.server();
    const missing = join(pki.dir, 'nope.pem');
    const text = problemsOf({
      ui_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: missing },
    }).join('\n');
    expect(text).to.include('ui_tls.client_ca_file').and.include('nope.pem').and.include('ENOENT');
  });

  it('names the key of a file that does not parse', () => {
    const server = pki.server();
    const garbage = join(pki.dir, 'garbage.pem');
    writeFileSync(garbage, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
    const notPem = join(pki.dir, 'not-pem.txt');
    writeFileSync(notPem, 'hello');
    expect(problemsOf({ opamp_tls: { cert_file: garbage, key_file: server.keyFile } }).join('\n')).to.match(
      /opamp_tls\.cert_file: .*garbage\.pem holds a certificate that does not parse/,
    );
    expect(problemsOf({ opamp_tls: { cert_file: server.certFile, key_file: notPem } }).join('\n')).to.match(
      /opamp_tls\.key_file: .*not-pem\.txt is not an unencrypted PEM private key/,
    );
    const ca = { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: notPem };
    expect(problemsOf({ telemetry_tls: ca }).join('\n')).to.match(
      /telemetry_tls\.client_ca_file: .*holds no PEM certificate/,
    );
  });

  it('names the key that does not belong to the certificate', () => {
    const server = pki.server();
    const other = pki.issue('other');
    expect(
      problemsOf({ ui_tls: { cert_file: server.certFile, key_file: other.keyFile } }).join('\n'),
    ).to.match(/ui_tls\.key_file: .*other\.key does not belong to the certificate in ui_tls\.cert_file/);
  });

  it('stops the process before listening, exit code 2, naming the key', () => {
    const file = join(pki.dir, 'bad.yaml');
    writeFileSync(
      file,
      `opamp_tls:\n  cert_file: ${join(pki.dir, 'absent.crt')}\n  key_file: ${pki.ca.keyFile}\n`,
    );
    const r = spawnSync(process.execPath, ['src/main.ts', '-config', file], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.include('opamp_tls.cert_file').and.include('absent.crt');
  });
});
