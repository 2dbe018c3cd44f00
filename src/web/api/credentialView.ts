// The credential an agent's instance id is bound to, as GET /api/agents/{id} shows it (issue 22;
// docs/api.md): the token's name or the certificate's identity and serial, never a secret.

import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { CredentialStore } from '../../projections/identity/credentialStore.ts';

export interface CredentialView {
  readonly kind: string | null;
  readonly name: string | null;
  readonly serial: string | null;
  readonly bound_at: string;
  readonly revoked_at: string | null;
  readonly revoked_by: string | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * The id's binding: null when no credential holds it (open mode, or not yet), undefined when the
 * store could not be read (the detail is then shown without it).
 */
export async function credentialView(
  store: Pick<CredentialStore, 'binding'>,
  uid: InstanceUid,
  logger: Logger,
): Promise<CredentialView | null | undefined> {
  try {
    const binding = await store.binding(uid);
    if (binding === undefined) return null;
    const c = binding.credential;
    return {
      kind: c?.kind ?? null,
      name: c?.name ?? null,
      serial: c?.serial ?? null,
      bound_at: new Date(binding.boundAt).toISOString(),
      revoked_at: iso(binding.revokedAt),
      revoked_by: binding.revokedBy,
    };
  } catch (error) {
    logger.warn({ err: error, uid }, 'credential store read failed: agent shown without its credential');
    return undefined;
  }
}
