// What an agent authenticated with, as the API and the agent page show it (issue 22: "show it in the
// detail view, the agent page and the API"): the binding of its instance id and the certificates the
// agent CA issued to it. Never a token: a token binding shows the token's configured name only.

import type { Binding, IssuedCertificate } from '../../projections/identity/credentialStore.ts';
import { rfc3339FromMs } from './time.ts';

export interface CertificateView {
  readonly serial: string;
  readonly not_before: string | null;
  readonly not_after: string | null;
  readonly issued_at: string | null;
  readonly issued_by: string;
  readonly revoked_at: string | null;
  /** The credential it was issued to (`kind:name`), the only holder that may move to it; null when unknown. */
  readonly issued_to: string | null;
  /** The enrolling token's selector it carries (issue 29); null: none. */
  readonly selector: string | null;
  /** Whether it may declare a gateway. */
  readonly gateway: boolean;
}

export interface CredentialView {
  /** `token`, `certificate` or `agent_certificate`; null when the id was revoked before it was bound. */
  readonly kind: string | null;
  readonly name: string | null;
  readonly serial: string | null;
  readonly bound_at: string | null;
  readonly revoked_at: string | null;
  readonly revoked_by: string | null;
  /** Issued by the agent CA, newest first (at most maxCertificatesShown). */
  readonly certificates: readonly CertificateView[];
}

export const maxCertificatesShown = 10;

const certificateView = (c: IssuedCertificate): CertificateView => ({
  serial: c.serial,
  not_before: rfc3339FromMs(c.notBefore),
  not_after: rfc3339FromMs(c.notAfter),
  issued_at: rfc3339FromMs(c.issuedAt),
  issued_by: c.issuedBy,
  revoked_at: rfc3339FromMs(c.revokedAt),
  issued_to: c.issuedTo === null ? null : `${c.issuedTo.kind}:${c.issuedTo.name}`,
  selector: c.bounds.selector,
  gateway: c.bounds.gateway,
});

/** Null when the id has no binding and no certificate: it never presented a credential. */
export function credentialView(
  binding: Binding | undefined,
  certificates: readonly IssuedCertificate[],
): CredentialView | null {
  if (binding === undefined && certificates.length === 0) return null;
  return {
    kind: binding?.credential?.kind ?? null,
    name: binding?.credential?.name ?? null,
    serial: binding?.credential?.serial ?? null,
    bound_at: rfc3339FromMs(binding?.boundAt),
    revoked_at: rfc3339FromMs(binding?.revokedAt),
    revoked_by: binding?.revokedBy ?? null,
    certificates: certificates.slice(0, maxCertificatesShown).map(certificateView),
  };
}
