// A certificate signing request from an agent, checked before anything is signed: one PEM block of
// bounded size, a PKCS#10 structure that parses, a key the service signs for, and a signature made
// with that key (proof that the sender holds the private key). Each refusal is a reason the agent
// receives in a ServerErrorResponse BadRequest.

import { createPublicKey, type webcrypto } from 'node:crypto';
import * as x509 from './x509.ts';
import { signingAlgorithmOf } from './agentCaFiles.ts';

/** The CSR as the agent sent it: PEM text, or its bytes (OpAMP carries the PEM as bytes). */
export type CsrInput = string | Uint8Array;

/** A PKCS#10 request with a P-521 or 4096-bit RSA key is under 4 KiB of PEM. */
export const maxCsrBytes = 16 * 1024;

const pemBlock =
  /^\s*-----BEGIN (NEW )?CERTIFICATE REQUEST-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END (NEW )?CERTIFICATE REQUEST-----\s*$/;

export type CsrKey =
  | { readonly ok: true; readonly key: x509.PublicKey; readonly rsa: boolean }
  | { readonly ok: false; readonly reason: string };

const refuse = (reason: string) => ({ ok: false, reason: `bad CSR: ${reason}` }) as const;

function pemText(input: CsrInput): string | undefined {
  if (typeof input === 'string') return input;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(input);
  } catch {
    return undefined;
  }
}

async function verified(csr: x509.Pkcs10CertificateRequest, crypto: webcrypto.Crypto): Promise<boolean> {
  try {
    return await csr.verify(crypto);
  } catch {
    return false;
  }
}

export type ParsedCsr =
  | { readonly ok: true; readonly csr: x509.Pkcs10CertificateRequest; readonly rsa: boolean }
  | { readonly ok: false; readonly reason: string };

/**
 * A CSR's shape, checked synchronously: one bounded PEM block, a PKCS#10 structure that parses, a
 * key the service signs for. Its signature is not checked yet (csrPublicKey does).
 */
export function parseCsr(input: CsrInput): ParsedCsr {
  if (input.length === 0) return refuse('empty');
  if (input.length > maxCsrBytes) return refuse(`larger than ${maxCsrBytes} bytes`);
  const text = pemText(input);
  if (text === undefined) return refuse('not UTF-8 text');
  if (!pemBlock.test(text)) return refuse('not one PEM CERTIFICATE REQUEST block');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(text);
  } catch (error) {
    return refuse(`does not parse (${(error as Error).message})`);
  }
  let algorithm;
  try {
    const spki = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
    algorithm = signingAlgorithmOf(spki);
  } catch (error) {
    return refuse(`its public key does not parse (${(error as Error).message})`);
  }
  if (typeof algorithm === 'string') return refuse(algorithm);
  return { ok: true, csr, rsa: algorithm.name === 'RSASSA-PKCS1-v1_5' };
}

/** The public key of a well-formed, correctly self-signed CSR; else why it is refused. */
export async function csrPublicKey(input: CsrInput, crypto: webcrypto.Crypto): Promise<CsrKey> {
  const parsed = parseCsr(input);
  if (!parsed.ok) return parsed;
  if (!(await verified(parsed.csr, crypto)))
    return refuse('its signature does not verify with its public key');
  return { ok: true, key: parsed.csr.publicKey, rsa: parsed.rsa };
}
