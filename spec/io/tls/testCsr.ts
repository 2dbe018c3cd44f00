// Certificate signing requests for specs, made at run time: with `openssl req` (the reference
// implementation, as agents built on OpenSSL make them) and with @peculiar/x509 (keys WebCrypto makes).

import { execFileSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '../../../src/io/tls/x509.ts';

export interface TestCsr {
  readonly csrPem: string;
  readonly keyPem: string;
  readonly keyFile: string;
}

/** openssl key options: EC P-256 by default; e.g. ['-newkey', 'rsa:1024'] for a short RSA key. */
export function opensslCsr(
  dir: string,
  name: string,
  options: { key?: string[]; subj?: string; ext?: string[] } = {},
): TestCsr {
  const keyFile = join(dir, `${name}.key`);
  const csrFile = join(dir, `${name}.csr`);
  const key = options.key ?? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const ext = (options.ext ?? []).flatMap((e) => ['-addext', e]);
  execFileSync(
    'openssl',
    [
      'req',
      '-new',
      ...key,
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      csrFile,
      '-subj',
      options.subj ?? `/CN=${name}`,
      ...ext,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return { csrPem: readFileSync(csrFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8'), keyFile };
}

/** A CSR signed by an Ed25519 key that WebCrypto generated. */
export async function libraryCsr(name: string): Promise<string> {
  const crypto = webcrypto;
  const keys = await crypto.subtle.generateKey('Ed25519', true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    { name: `CN=${name}`, keys, signingAlgorithm: { name: 'Ed25519' } },
    crypto,
  );
  return csr.toString('pem');
}

/** The PEM with one byte of its DER changed near the end: the signature no longer matches. */
export function tamper(pem: string): string {
  const body = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const der = Buffer.from(body, 'base64');
  der[der.length - 3] = der[der.length - 3]! ^ 0xff;
  const lines = der.toString('base64').match(/.{1,64}/g)!;
  return `-----BEGIN CERTIFICATE REQUEST-----\n${lines.join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
}
