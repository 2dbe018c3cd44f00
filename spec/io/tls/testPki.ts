// A throwaway PKI for specs, generated at run time with the system `openssl` (no committed keys):
// a CA, and certificates it signs carrying whatever subjectAltNames a spec needs (spiffe:// URIs,
// 127.0.0.1, localhost). EC P-256 keys keep generation to a few milliseconds per certificate.
// `openssl` is used rather than an npm X.509 library because it is the reference implementation,
// ships with every CI image, and writes exactly the PEM files the service reads from config.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Issued {
  readonly cert: string;
  readonly key: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export interface IssueOptions {
  /** subjectAltName entries in openssl syntax, e.g. 'URI:spiffe://example.org/agent', 'IP:127.0.0.1'. */
  readonly sans?: readonly string[];
  readonly cn?: string;
}

export interface TestPki {
  readonly dir: string;
  readonly ca: Issued;
  issue(name: string, options?: IssueOptions): Issued;
  /** A server certificate for 127.0.0.1 and localhost. */
  server(): Issued;
  cleanup(): void;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function read(certFile: string, keyFile: string): Issued {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
}

export function createPki(caName = 'Test CA'): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pki-'));
  const caCert = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  openssl([
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    caKey,
    '-out',
    caCert,
    '-days',
    '2',
    '-subj',
    `/CN=${caName}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const ca = read(caCert, caKey);
  let serial = 1;

  function issue(name: string, options: IssueOptions = {}): Issued {
    const base = join(dir, name);
    const ext = [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth,clientAuth',
    ];
    if (options.sans && options.sans.length > 0) ext.push(`subjectAltName=${options.sans.join(',')}`);
    writeFileSync(`${base}.ext`, `${ext.join('\n')}\n`);
    openssl([
      'req',
      ...ecKey,
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.csr`,
      '-subj',
      `/CN=${options.cn ?? name}/O=Spec`,
    ]);
    openssl([
      'x509',
      '-req',
      '-in',
      `${base}.csr`,
      '-CA',
      caCert,
      '-CAkey',
      caKey,
      '-set_serial',
      String(serial++),
      '-days',
      '2',
      '-out',
      `${base}.crt`,
      '-extfile',
      `${base}.ext`,
    ]);
    return read(`${base}.crt`, `${base}.key`);
  }

  return {
    dir,
    ca,
    issue,
    server: () => issue('server', { sans: ['IP:127.0.0.1', 'DNS:localhost'], cn: 'localhost' }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
