// The credential store when persistence is off: two maps in this process. Everything in it is lost at
// a restart (docs/security.md "What persistence off forgets"): every id may be claimed afresh by the
// first credential that presents it, a revoked id is admitted again, and a certificate the agent CA
// issued before is refused (certificate_unrecorded: the bounds of its enrolling credential are lost
// with its record), so its agent enrolls again with its token.

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentCredential } from './agentCredential.ts';
import type {
  BindOutcome,
  Binding,
  CredentialStore,
  IssuedCertificate,
  RevokeOutcome,
} from './credentialStore.ts';
import { noBounds } from './credentialStore.ts';
import { decideBind } from './decideBind.ts';

export function createMemoryCredentialStore(): CredentialStore {
  const bindings = new Map<InstanceUid, Binding>();
  const certificates = new Map<string, IssuedCertificate>();
  const byUid = new Map<InstanceUid, Set<string>>();

  function bindNow(uid: InstanceUid, credential: AgentCredential, at: number): BindOutcome {
    const existing = bindings.get(uid);
    const certificate = credential.serial === undefined ? undefined : certificates.get(credential.serial);
    const decision = decideBind({ uid, credential, existing, certificate });
    if (decision.action === 'refuse') return decision.outcome;
    // Never asked without a credential (the contract); an open id is not recorded.
    if (decision.action === 'open') throw new Error('bind without a credential');
    const boundAt = decision.action === 'same' && existing ? existing.boundAt : at;
    const binding: Binding = { uid, credential, boundAt, revokedAt: null, revokedBy: null };
    bindings.set(uid, binding);
    return { outcome: 'bound', binding };
  }

  function revokeNow(uid: InstanceUid, actor: string, at: number): RevokeOutcome {
    const existing = bindings.get(uid);
    if (existing?.revokedAt != null)
      return {
        changed: false,
        revokedAt: existing.revokedAt,
        revokedBy: existing.revokedBy ?? '',
        certificates: 0,
      };
    bindings.set(uid, {
      uid,
      credential: existing?.credential ?? null,
      boundAt: existing?.boundAt ?? at,
      revokedAt: at,
      revokedBy: actor,
    });
    let revoked = 0;
    for (const serial of byUid.get(uid) ?? []) {
      const c = certificates.get(serial)!;
      if (c.revokedAt !== null) continue;
      certificates.set(serial, { ...c, revokedAt: at });
      revoked++;
    }
    return { changed: true, revokedAt: at, revokedBy: actor, certificates: revoked };
  }

  return {
    bind: (uid, credential, at) => Promise.resolve(bindNow(uid, credential, at)),
    binding: (uid) => Promise.resolve(bindings.get(uid)),
    recordIssued(certificate) {
      certificates.set(certificate.serial, {
        issuedTo: null,
        bounds: noBounds,
        ...certificate,
        revokedAt: null,
      });
      const serials = byUid.get(certificate.uid) ?? new Set<string>();
      byUid.set(certificate.uid, serials.add(certificate.serial));
      return Promise.resolve();
    },
    certificates: (uid) =>
      Promise.resolve(
        [...(byUid.get(uid) ?? [])].map((s) => certificates.get(s)!).sort((a, b) => b.issuedAt - a.issuedAt),
      ),
    revoke: (uid, actor, at) => Promise.resolve(revokeNow(uid, actor, at)),
  };
}
