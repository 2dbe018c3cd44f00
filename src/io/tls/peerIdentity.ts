// Who the client of a TLS request is, for the UI and telemetry listeners. Identity comes only from a
// certificate the configured client CA verified (the handshake admits everyone; see serverOptions.ts).

import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { RoleMappingEntry } from '../config/schema.ts';
import { resolveRole, type ResolvedRole } from './roleMapping.ts';
import { spiffeIdOf } from './spiffeId.ts';

export type PeerIdentity =
  | { readonly ok: true; readonly spiffeId: string; readonly role: ResolvedRole }
  | { readonly ok: false; readonly reason: string };

export interface RolePolicy {
  readonly mapping: readonly RoleMappingEntry[];
  readonly defaultRole: ResolvedRole;
}

export function peerIdentity(socket: Socket, policy: RolePolicy): PeerIdentity {
  const tls = socket as TLSSocket;
  if (tls.encrypted !== true) return { ok: false, reason: 'not a TLS connection' };
  const cert = tls.getPeerCertificate();
  if (cert === null || Object.keys(cert).length === 0) return { ok: false, reason: 'no client certificate' };
  if (!tls.authorized)
    return { ok: false, reason: `client certificate not trusted (${String(tls.authorizationError)})` };
  const spiffe = spiffeIdOf(cert.subjectaltname);
  if (!spiffe.ok) return { ok: false, reason: spiffe.reason };
  return { ok: true, spiffeId: spiffe.id, role: resolveRole(spiffe.id, policy.mapping, policy.defaultRole) };
}

export type Access =
  | { readonly ok: true; readonly spiffeId: string; readonly role: Exclude<ResolvedRole, 'none'> }
  | { readonly ok: false; readonly reason: string };

/**
 * Whether an identity may make a request: any role but `none` may read; when `adminFor` names what
 * the request does (for example its method), it needs `admin`.
 */
export function decideAccess(identity: PeerIdentity, adminFor?: string): Access {
  if (!identity.ok) return identity;
  if (identity.role === 'none') return { ok: false, reason: `no role for ${identity.spiffeId}` };
  if (adminFor !== undefined && identity.role !== 'admin')
    return { ok: false, reason: `${identity.spiffeId} has role ${identity.role}; ${adminFor} needs admin` };
  return { ok: true, spiffeId: identity.spiffeId, role: identity.role };
}
