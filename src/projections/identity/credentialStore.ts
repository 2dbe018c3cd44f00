// Which credential each instance id belongs to, and which certificates the agent CA issued (issue 22;
// docs/security.md "Agent credentials"). Two implementations: in memory (persistence off: a restart
// forgets every binding, issued certificate and revocation) and PostgreSQL (persistence on: shared
// by every replica, so two replicas racing for one id agree on its holder).

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentCredential } from './agentCredential.ts';

export interface Binding {
  readonly uid: InstanceUid;
  /** Null when the id was revoked before any credential presented it. */
  readonly credential: AgentCredential | null;
  /** Unix ms. */
  readonly boundAt: number;
  readonly revokedAt: number | null;
  readonly revokedBy: string | null;
}

export type BindOutcome =
  /** The id belongs to this credential (now, or already). */
  | { readonly outcome: 'bound'; readonly binding: Binding }
  /** Another credential holds the id: refuse (uid_bound_elsewhere). */
  | { readonly outcome: 'bound_elsewhere'; readonly holder: AgentCredential }
  /** The id, or the presented certificate, was revoked: refuse (revoked; 401 before an upgrade). */
  | { readonly outcome: 'revoked'; readonly revokedAt: number }
  /** The certificate names another instance id (uid_not_in_certificate). */
  | { readonly outcome: 'not_named'; readonly named: string }
  /** An agent-CA certificate with no record in the store (certificate_unrecorded). */
  | { readonly outcome: 'unrecorded' };

export interface IssuedCertificate {
  /** Lowercase hex. */
  readonly serial: string;
  readonly uid: InstanceUid;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly issuedAt: number;
  /** credentialLabel() of what the agent authenticated with when it asked. */
  readonly issuedBy: string;
  readonly revokedAt: number | null;
  /**
   * The enrolling credential (kind and name) it was issued to: the only holder of the id that may
   * move to it (decideBind). Null for a record that kept none (one made before issue 29).
   */
  readonly issuedTo: Pick<AgentCredential, 'kind' | 'name'> | null;
  /** The bounds the enrolling credential had, which travel with the certificate (CertificateBounds). */
  readonly bounds: CertificateBounds;
}

/**
 * What the credential that asked for a certificate was allowed, kept with the certificate and
 * applied to every connection that presents it (issue 29), and passed on to its renewals.
 */
export interface CertificateBounds {
  /** The enrolling token's selector (fleet matcher text); null: none. */
  readonly selector: string | null;
  /** Whether it may declare a gateway (agents.tokens[].gateway). */
  readonly gateway: boolean;
}

export const noBounds: CertificateBounds = Object.freeze({ selector: null, gateway: false });

/** What recordIssued takes: the bounds and enrolling credential default to none. */
export type NewCertificate = Omit<IssuedCertificate, 'revokedAt' | 'issuedTo' | 'bounds'> &
  Partial<Pick<IssuedCertificate, 'issuedTo' | 'bounds'>>;

export interface RevokeOutcome {
  /** False when the id was revoked already (nothing changed; `revokedAt` is the first revocation). */
  readonly changed: boolean;
  readonly revokedAt: number;
  readonly revokedBy: string;
  /** Certificates of the id marked revoked by this call. */
  readonly certificates: number;
}

/** Every method may reject (the database is down): the caller refuses rather than guesses. */
export interface CredentialStore {
  /** Who may speak for an id (decideBind.ts); never called without a credential. */
  bind(uid: InstanceUid, credential: AgentCredential, at: number): Promise<BindOutcome>;
  binding(uid: InstanceUid): Promise<Binding | undefined>;
  recordIssued(certificate: NewCertificate): Promise<void>;
  /** The id's certificates, newest first. */
  certificates(uid: InstanceUid): Promise<readonly IssuedCertificate[]>;
  /** Marks the id's binding (made if there is none) and all its certificates revoked. */
  revoke(uid: InstanceUid, actor: string, at: number): Promise<RevokeOutcome>;
}
