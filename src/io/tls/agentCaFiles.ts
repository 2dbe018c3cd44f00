// The agent CA's files (agents.ca.*), read and checked once at startup like the listeners' TLS files:
// the certificate must be a CA certificate (basicConstraints CA:TRUE, keyCertSign when it has a key
// usage), valid now, and the key must be its key, of a kind the service signs with. The service never
// generates a CA: without these files there is no certificate issuance at all.

import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { readText } from './tlsMaterial.ts';
import type * as X509Module from './x509.ts';

/** agents.ca as configured (empty strings when unset; validity in ms). */
export interface AgentCaConfig {
  readonly cert_file: string;
  readonly key_file: string;
  readonly trust_domain: string;
  readonly validity: number;
  /** Certificates one credential may be issued an hour (decideIssue). */
  readonly max_per_hour: number;
}

export type SigningAlgorithm =
  | { readonly name: 'ECDSA'; readonly namedCurve: string; readonly hash: string }
  | { readonly name: 'RSASSA-PKCS1-v1_5'; readonly hash: string }
  | { readonly name: 'Ed25519' };

export interface AgentCaMaterial {
  readonly certPem: string;
  readonly cert: X509Certificate;
  readonly key: KeyObject;
  readonly algorithm: SigningAlgorithm;
}

const curves: Readonly<Record<string, { namedCurve: string; hash: string }>> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' },
};

/** How a key signs, or why the service cannot sign with it. Also used for the keys of CSRs. */
export function signingAlgorithmOf(key: KeyObject): SigningAlgorithm | string {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'ec': {
      const curve = curves[details.namedCurve ?? ''];
      return curve ? { name: 'ECDSA', ...curve } : `EC curve ${details.namedCurve ?? '?'} is not supported`;
    }
    case 'rsa':
      return (details.modulusLength ?? 0) >= 2048
        ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
        : `RSA keys of ${details.modulusLength ?? 0} bits are too short (2048 at least)`;
    case 'ed25519':
      return { name: 'Ed25519' };
    default:
      return `${key.asymmetricKeyType ?? 'unknown'} keys are not supported`;
  }
}

/**
 * The X.509 library takes most of a second to load: only a service with an agent CA loads it (require
 * of an ES module, synchronous, as the schema's checks are).
 */
const loadX509 = (): typeof X509Module => createRequire(import.meta.url)('./x509.ts') as typeof X509Module;

function certificateProblems(cert: X509Certificate, pem: string, now: number): string | undefined {
  const x509 = loadX509();
  const parsed = new x509.X509Certificate(pem);
  if (parsed.getExtension(x509.BasicConstraintsExtension)?.ca !== true)
    return 'is not a CA certificate (basicConstraints CA:TRUE is missing)';
  const usage = parsed.getExtension(x509.KeyUsagesExtension);
  if (usage && (usage.usages & x509.KeyUsageFlags.keyCertSign) === 0)
    return 'has a key usage without keyCertSign';
  if (!cert.ca) return 'is not accepted by OpenSSL as a CA certificate';
  if (Date.parse(cert.validTo) <= now) return `expired at ${cert.validTo}`;
  if (Date.parse(cert.validFrom) > now) return `is not valid before ${cert.validFrom}`;
  return undefined;
}

/** The CA's material, or every problem with it (none configured: neither). */
export function readAgentCa(
  config: Omit<AgentCaConfig, 'max_per_hour'>,
  now = Date.now(),
): { readonly material?: AgentCaMaterial; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const { cert_file, key_file, trust_domain } = config;
  if (cert_file === '' && key_file === '' && trust_domain === '') return { problems };
  if (cert_file === '' || key_file === '')
    return { problems: ['agents.ca.cert_file and agents.ca.key_file must be set together'] };
  if (trust_domain === '') problems.push('agents.ca.trust_domain is required with agents.ca.cert_file');
  const certPem = readText('agents.ca.cert_file', cert_file, problems);
  const keyPem = readText('agents.ca.key_file', key_file, problems);
  if (certPem === undefined || keyPem === undefined) return { problems };
  let cert: X509Certificate;
  let key: KeyObject;
  try {
    cert = new X509Certificate(certPem);
  } catch (error) {
    return {
      problems: [
        ...problems,
        `agents.ca.cert_file: ${cert_file} holds no certificate that parses (${(error as Error).message})`,
      ],
    };
  }
  try {
    key = createPrivateKey(keyPem);
  } catch (error) {
    return {
      problems: [
        ...problems,
        `agents.ca.key_file: ${key_file} is not an unencrypted PEM private key (${(error as Error).message})`,
      ],
    };
  }
  const certProblem = certificateProblems(cert, certPem, now);
  if (certProblem !== undefined) problems.push(`agents.ca.cert_file: ${cert_file} ${certProblem}`);
  if (!cert.checkPrivateKey(key))
    problems.push(
      `agents.ca.key_file: ${key_file} does not belong to the certificate in agents.ca.cert_file`,
    );
  const algorithm = signingAlgorithmOf(key);
  if (typeof algorithm === 'string') problems.push(`agents.ca.key_file: ${algorithm}`);
  if (problems.length > 0 || typeof algorithm === 'string') return { problems };
  return { material: { certPem: cert.toString(), cert, key, algorithm }, problems };
}
