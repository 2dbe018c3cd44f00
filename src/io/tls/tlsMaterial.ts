// TLS files of the three listeners, read and checked once at startup. Every problem names the
// configuration key that points at the bad file, so an operator knows what to fix; the process does
// not start while any remains (SPEC "Configuration": invalid configuration stops startup).

import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

export type ListenerName = 'opamp' | 'ui' | 'telemetry';

/** PEM text of one listener's TLS files; `ca` only when client certificates are verified. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  readonly ca: string | undefined;
}

/** The TLS files of one listener, as configured (`*_tls` keys; empty strings when unset). */
export interface TlsFiles {
  readonly cert_file: string;
  readonly key_file: string;
  readonly client_ca_file: string;
}

/** The configuration's TLS sections (src/io/config/schema.ts validates them with this module). */
export type TlsConfig = Readonly<Record<`${ListenerName}_tls`, TlsFiles>>;

export type ListenersTls = Readonly<Record<ListenerName, TlsMaterial | undefined>>;

const listeners: readonly ListenerName[] = ['opamp', 'ui', 'telemetry'];
const pemCertificates = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** A configured file's text, or a problem naming the key that points at it. */
export function readText(key: string, file: string, problems: string[]): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`${key}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    return undefined;
  }
}

function parseCertificates(key: string, file: string, text: string, problems: string[]): X509Certificate[] {
  const blocks = text.match(pemCertificates) ?? [];
  if (blocks.length === 0) problems.push(`${key}: ${file} holds no PEM certificate`);
  const out: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      out.push(new X509Certificate(block));
    } catch (error) {
      problems.push(`${key}: ${file} holds a certificate that does not parse (${(error as Error).message})`);
    }
  }
  return out;
}

function parseKey(key: string, file: string, text: string, problems: string[]): KeyObject | undefined {
  try {
    return createPrivateKey(text);
  } catch (error) {
    problems.push(`${key}: ${file} is not an unencrypted PEM private key (${(error as Error).message})`);
    return undefined;
  }
}

/** One listener's files; problems are appended, material returned only when all of it is sound. */
function readListener(section: string, files: TlsFiles, problems: string[]): TlsMaterial | undefined {
  if (files.cert_file === '' && files.key_file === '') return undefined; // pairing is checked by the schema
  const before = problems.length;
  const certKey = `${section}.cert_file`;
  const keyKey = `${section}.key_file`;
  const caKey = `${section}.client_ca_file`;
  const cert = readText(certKey, files.cert_file, problems);
  const key = readText(keyKey, files.key_file, problems);
  const ca = files.client_ca_file === '' ? undefined : readText(caKey, files.client_ca_file, problems);
  const leaf =
    cert === undefined ? undefined : parseCertificates(certKey, files.cert_file, cert, problems)[0];
  const privateKey = key === undefined ? undefined : parseKey(keyKey, files.key_file, key, problems);
  if (ca !== undefined) parseCertificates(caKey, files.client_ca_file, ca, problems);
  if (leaf && privateKey && !leaf.checkPrivateKey(privateKey))
    problems.push(
      `${keyKey}: ${files.key_file} does not belong to the certificate in ${certKey} (${files.cert_file})`,
    );
  if (problems.length > before || cert === undefined || key === undefined) return undefined;
  try {
    createSecureContext({ cert, key, ca });
  } catch (error) {
    problems.push(`${section}: OpenSSL refuses ${certKey}/${keyKey}/${caKey}: ${(error as Error).message}`);
    return undefined;
  }
  return { cert, key, ca };
}

/** The TLS material of every listener, and every problem found (material is usable only when none). */
export function readTlsMaterial(config: TlsConfig): {
  readonly tls: ListenersTls;
  readonly problems: readonly string[];
} {
  const problems: string[] = [];
  const tls: Record<ListenerName, TlsMaterial | undefined> = {
    opamp: undefined,
    ui: undefined,
    telemetry: undefined,
  };
  for (const name of listeners) tls[name] = readListener(`${name}_tls`, config[`${name}_tls`], problems);
  return { tls, problems };
}

/** For the schema: every problem with the configured TLS files (empty when all are usable). */
export const tlsFileProblems = (config: TlsConfig): readonly string[] => readTlsMaterial(config).problems;
