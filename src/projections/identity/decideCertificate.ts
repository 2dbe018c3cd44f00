// Whether an agent that sent a certificate signing request gets a certificate (issue 22;
// docs/security.md "Agent certificates"). Pure: time comes in as `now`; signing, recording and the
// wire are the OpAMP adapter's (src/io/opamp/certificateOffer.ts).

import type { InstanceUid } from '../../events/ids.ts';
import { agentSpiffeId, type AgentCredential } from './agentCredential.ts';

/** Renew once two thirds of the certificate's validity have passed. */
export function needsRenewal(notBefore: number, notAfter: number, now: number): boolean {
  return now >= notBefore + ((notAfter - notBefore) * 2) / 3;
}

/** Why a CSR is refused (svc_opamp_refused_total{reason}). */
export type CertificateRefusal = 'csr_unauthenticated' | 'csr_other_agent';

export interface CertificateAsk {
  readonly uid: InstanceUid;
  readonly trustDomain: string;
  /** What the connection authenticated with; undefined for an unauthenticated one. */
  readonly credential: AgentCredential | undefined;
  /** Validity (Unix ms) of the agent certificate the connection presented for `uid`, if any. */
  readonly presented: { readonly notBefore: number; readonly notAfter: number } | undefined;
  /** A certificate was already issued for `uid` to this connection. */
  readonly issuedOnConnection: boolean;
  /** Unix ms. */
  readonly now: number;
}

export type CertificateDecision =
  /** Sign the CSR: a first certificate, a renewal, or an agent enrolling again with its token. */
  | { readonly action: 'issue' }
  /** No new certificate: the agent holds a current one. Nothing is offered. */
  | { readonly action: 'keep'; readonly why: string }
  | { readonly action: 'refuse'; readonly reason: CertificateRefusal; readonly text: string };

/**
 * **Decision**: an agent that presents a certificate of this CA for its own id gets a new one only
 * past two thirds of that certificate's validity; before, it keeps the one it has and nothing is
 * offered (its CSR carries a new key, so offering the old certificate again would not help it). A
 * connection repeating CSRs is answered once. Whether a certificate is then issued at all (one
 * outstanding per id, the credential's hourly limit) is decideIssue's, on what the store holds.
 */
export function decideCertificate(ask: CertificateAsk): CertificateDecision {
  const { credential, uid } = ask;
  if (credential === undefined)
    return {
      action: 'refuse',
      reason: 'csr_unauthenticated',
      text: 'certificates are issued only to an authenticated agent: present an enrollment token or a client certificate',
    };
  if (credential.kind === 'agent_certificate' && credential.name !== agentSpiffeId(ask.trustDomain, uid))
    return {
      action: 'refuse',
      reason: 'csr_other_agent',
      text: `the client certificate names another agent (${credential.name})`,
    };
  if (ask.issuedOnConnection)
    return { action: 'keep', why: 'a certificate was issued on this connection already' };
  const { presented } = ask;
  if (presented !== undefined && !needsRenewal(presented.notBefore, presented.notAfter, ask.now))
    return { action: 'keep', why: 'the certificate presented is not due for renewal' };
  return { action: 'issue' };
}

/** What the store and the issue rate say when a certificate is about to be issued. */
export interface IssueContext {
  /** The id's certificates, newest first (CredentialStore.certificates). */
  readonly certificates: readonly {
    readonly notBefore: number;
    readonly notAfter: number;
    readonly revokedAt: number | null;
  }[];
  /** Certificates issued to the asking credential in the hour before `now`. */
  readonly issuedLastHour: number;
  /** agents.ca.max_per_hour. */
  readonly maxPerHour: number;
  /** Unix ms. */
  readonly now: number;
}

export type IssueDecision =
  | { readonly action: 'issue' }
  | { readonly action: 'keep'; readonly why: string }
  | { readonly action: 'refuse'; readonly reason: 'csr_rate_limited'; readonly text: string };

/**
 * **Decision**: at most one certificate is outstanding per id. While the id's newest certificate
 * that is neither revoked nor expired is not due for renewal, whoever asks (a token holder on any
 * connection, any replica) gets nothing: the agent keeps the certificate it has, or its token. And
 * each credential may be issued at most `maxPerHour` certificates an hour (agents.ca.max_per_hour),
 * so one token cannot mint certificates for fresh ids without bound; past it the CSR is refused
 * (`csr_rate_limited`).
 */
export function decideIssue(context: IssueContext): IssueDecision {
  const { now } = context;
  const outstanding = context.certificates.find((c) => c.revokedAt === null && c.notAfter > now);
  if (outstanding !== undefined && !needsRenewal(outstanding.notBefore, outstanding.notAfter, now))
    return { action: 'keep', why: 'a certificate for this id is outstanding and not due for renewal' };
  if (context.issuedLastHour >= context.maxPerHour)
    return {
      action: 'refuse',
      reason: 'csr_rate_limited',
      text: `this credential was issued ${context.issuedLastHour} certificates in the last hour (agents.ca.max_per_hour)`,
    };
  return { action: 'issue' };
}
