// TLS options of each listener's server (SPEC "Authentication").
// - OpAMP with a client CA: mTLS at the handshake. A client without a certificate, or with one the CA
//   did not sign, never gets to send a message.
// - UI and telemetry with a client CA: the handshake asks for a certificate but admits clients
//   without one (or with an untrusted one), so the HTTP layer can answer 403 with a reason, and
//   telemetry can keep /healthz and /readyz open. Identity is taken only from a CA-verified
//   certificate (TLSSocket.authorized), never from an unverified one.

import type { TlsOptions } from 'node:tls';
import type { ListenerName, TlsMaterial } from './tlsMaterial.ts';

/** A handshake that hangs longer than this is dropped (slow-loris on TLS). */
export const tlsHandshakeTimeoutMs = 10_000;

export function serverTlsOptions(listener: ListenerName, material: TlsMaterial): TlsOptions {
  const base: TlsOptions = {
    cert: material.cert,
    key: material.key,
    minVersion: 'TLSv1.2',
    handshakeTimeout: tlsHandshakeTimeoutMs,
  };
  if (material.ca === undefined) return base;
  const enforceAtHandshake = listener === 'opamp';
  return { ...base, ca: material.ca, requestCert: true, rejectUnauthorized: enforceAtHandshake };
}
