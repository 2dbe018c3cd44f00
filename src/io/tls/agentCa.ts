// The agent certificate authority: the server side of OpAMP's CSR flow (issue 22; docs/security.md
// "Agent certificates"). An agent that authenticated sends a PKCS#10 CSR in
// connection_settings_request.opamp.certificate_request.csr; signAgentCsr checks the request's own
// signature and issues a short-lived client certificate that names the agent and nothing else. Of the
// CSR only the public key is used: its subject and requested extensions are ignored, so an agent
// cannot ask for another name, a CA bit or serverAuth. X.509 encoding is @peculiar/x509's (DER and
// PKCS#10 parsing with resource limits, signatures through WebCrypto), never hand-written ASN.1.

import { randomBytes, webcrypto, type X509Certificate } from 'node:crypto';
import * as x509 from './x509.ts';
import { parseInstanceUid, type InstanceUid } from '../../events/ids.ts';
import { agentSpiffeId, type AgentCredential } from '../../projections/identity/agentCredential.ts';
export { needsRenewal } from '../../projections/identity/decideCertificate.ts';
import type { AgentCaMaterial } from './agentCaFiles.ts';
import { csrPublicKey, type CsrInput } from './csr.ts';
import { spiffeIdOf } from './spiffeId.ts';

export type SignOutcome =
  | {
      readonly ok: true;
      readonly certPem: string;
      /** The CA certificate, for TLSCertificate.ca_cert of the offer. */
      readonly caPem: string;
      /** Lowercase hex. */
      readonly serial: string;
      readonly notBefore: number;
      readonly notAfter: number;
    }
  | { readonly ok: false; readonly reason: string };

export interface SignRequest {
  readonly csrPem: CsrInput;
  readonly instanceUid: InstanceUid;
  /** What the connection authenticated with; undefined for an unauthenticated one (refused). */
  readonly credential: AgentCredential | undefined;
  /** Unix ms. */
  readonly now: number;
}

/** A client certificate this CA issued, as presented by a connection. */
export interface IssuedAgent {
  readonly instanceUid: InstanceUid;
  readonly serial: string;
  readonly spiffeId: string;
  readonly notBefore: number;
  readonly notAfter: number;
}

export interface AgentCa {
  readonly trustDomain: string;
  readonly validityMs: number;
  readonly caPem: string;
  signAgentCsr(request: SignRequest): Promise<SignOutcome>;
  /**
   * The agent a presented certificate names, when this CA issued it and it is valid at `now` (Unix
   * ms); undefined otherwise. Checks the signature itself, whatever the TLS handshake checked.
   */
  issuedAgent(cert: X509Certificate, now: number): IssuedAgent | undefined;
}

/** Issued certificates start this much before the moment of issue, for agents whose clock lags. */
export const backdateMs = 5 * 60_000;

/** 128 random bits, positive and without a leading zero byte, as lowercase hex. */
function newSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

function refusedCredential(request: SignRequest, trustDomain: string): string | undefined {
  const { credential, instanceUid } = request;
  if (credential === undefined)
    return 'certificates are issued only to an authenticated agent: present an enrollment token or a client certificate';
  if (credential.kind === 'agent_certificate' && credential.name !== agentSpiffeId(trustDomain, instanceUid))
    return `the client certificate names another agent (${credential.name})`;
  return undefined;
}

/** Synchronous, so the service builds it with everything else; what WebCrypto computes waits for the first CSR. */
export function createAgentCa(
  material: AgentCaMaterial,
  options: { readonly trustDomain: string; readonly validityMs: number },
): AgentCa {
  const crypto = webcrypto;
  const { trustDomain, validityMs } = options;
  const signingKey = material.key.toCryptoKey(material.algorithm, false, ['sign']);
  const caCert = new x509.X509Certificate(material.certPem);
  const caPublicKey = material.cert.publicKey;
  const caNotAfter = Date.parse(material.cert.validTo);
  const ski = caCert.getExtension(x509.SubjectKeyIdentifierExtension);
  let authorityKeyId: Promise<x509.AuthorityKeyIdentifierExtension> | undefined;
  const authorityKeyIdOnce = () =>
    (authorityKeyId ??= ski
      ? Promise.resolve(new x509.AuthorityKeyIdentifierExtension(ski.keyId))
      : x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, crypto));
  const agentPrefix = `spiffe://${trustDomain}/agent/`;

  async function signAgentCsr(request: SignRequest): Promise<SignOutcome> {
    const refused = refusedCredential(request, trustDomain);
    if (refused !== undefined) return { ok: false, reason: refused };
    const publicKey = await csrPublicKey(request.csrPem, crypto);
    if (!publicKey.ok) return publicKey;
    const serial = newSerial();
    const notBefore = request.now - backdateMs;
    const notAfter = Math.min(request.now + validityMs, caNotAfter);
    const cert = await x509.X509CertificateGenerator.create(
      {
        serialNumber: serial,
        subject: [{ CN: [request.instanceUid] }],
        issuer: caCert.subjectName,
        notBefore: new Date(notBefore),
        notAfter: new Date(notAfter),
        publicKey: publicKey.key,
        signingKey,
        signingAlgorithm: material.algorithm,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(
            x509.KeyUsageFlags.digitalSignature | (publicKey.rsa ? x509.KeyUsageFlags.keyEncipherment : 0),
            true,
          ),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
          new x509.SubjectAlternativeNameExtension([
            { type: 'url', value: agentSpiffeId(trustDomain, request.instanceUid) },
          ]),
          await x509.SubjectKeyIdentifierExtension.create(publicKey.key, false, crypto),
          await authorityKeyIdOnce(),
        ],
      },
      crypto,
    );
    return { ok: true, certPem: cert.toString('pem'), caPem: material.certPem, serial, notBefore, notAfter };
  }

  function issuedAgent(cert: X509Certificate, now: number): IssuedAgent | undefined {
    if (!cert.checkIssued(material.cert) || !cert.verify(caPublicKey)) return undefined;
    const notBefore = Date.parse(cert.validFrom);
    const notAfter = Date.parse(cert.validTo);
    if (now < notBefore || now > notAfter) return undefined;
    const spiffe = spiffeIdOf(cert.subjectAltName);
    if (!spiffe.ok || !spiffe.id.startsWith(agentPrefix)) return undefined;
    const instanceUid = parseInstanceUid(spiffe.id.slice(agentPrefix.length));
    if (instanceUid === undefined) return undefined;
    return {
      instanceUid,
      serial: cert.serialNumber.toLowerCase(),
      spiffeId: spiffe.id,
      notBefore,
      notAfter,
    };
  }

  return { trustDomain, validityMs, caPem: material.certPem, signAgentCsr, issuedAgent };
}
