// What an agent authenticated with (issue 22; docs/security.md "Agent credentials"). An instance id
// belongs to the first credential that presents it; later connections for that id must present the
// same holder, or a certificate the service's own CA issued for that very id (the holder's successor:
// it was issued only to the connection that held the id).

import type { InstanceUid } from '../../events/ids.ts';

export type CredentialKind =
  /** An enrollment token (agents.tokens): `name` is the token's configured name, never the token. */
  | 'token'
  /** A client certificate the OpAMP listener's client CA verified: `name` is its SPIFFE id, else subject. */
  | 'certificate'
  /** A certificate the agent CA (agents.ca) issued for this id: `name` is its SPIFFE id. */
  | 'agent_certificate';

export interface AgentCredential {
  readonly kind: CredentialKind;
  readonly name: string;
  /** Certificate serial, lowercase hex; absent for a token. */
  readonly serial?: string | undefined;
}

/** A credential as one line of text (logs, the `issued_by` of a certificate). */
export const credentialLabel = (c: AgentCredential): string =>
  c.serial === undefined ? `${c.kind}:${c.name}` : `${c.kind}:${c.name} serial ${c.serial}`;

/** Same holder: same kind and name. A renewed certificate (new serial) is the same holder. */
export const sameHolder = (a: AgentCredential, b: AgentCredential): boolean =>
  a.kind === b.kind && a.name === b.name;

/** The SPIFFE id the agent CA writes into the one URI SAN of a certificate for `uid`. */
export const agentSpiffeId = (trustDomain: string, uid: InstanceUid): string =>
  `spiffe://${trustDomain}/agent/${uid}`;
