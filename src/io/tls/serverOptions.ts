// TLS options of each listener's server (SPEC "Authentication").
// - OpAMP with a client CA: mTLS at the handshake. A client without a certificate, or with one the CA
//   did not sign, never gets to send a message.
// - UI and telemetry with a client CA: the handshake asks for a certificate but admits clients
//   without one (or with an untrusted one), so the HTTP layer can answer 403 with a reason, and
//   telemetry can keep /healthz and /readyz open. Identity is taken only from a CA-verified
//   certificate (TLSSocket.authorized), never from an unverified one.
// - OpAMP with the agent CA (agents.ca): its certificates are verified beside the client CA's. Without
//   a client CA the handshake asks for a certificate but admits agents without one, as enrollment
//   tokens (or open mode) remain a way in; admission.ts then takes only a certificate the agent CA
//   issued as a credential.

import type { TlsOptions } from 'node:tls';
import type { ListenerName, TlsMaterial } from './tlsMaterial.ts';

/** A handshake that hangs longer than this is dropped (slow-loris on TLS). */
export const tlsHandshakeTimeoutMs = 10_000;

/** `agentCaPem`: the agent CA's certificate (OpAMP listener, agents.ca set). */
export function serverTlsOptions(
  listener: ListenerName,
  material: TlsMaterial,
  agentCaPem?: string,
): TlsOptions {
  const base: TlsOptions = {
    cert: material.cert,
    key: material.key,
    minVersion: 'TLSv1.2',
    handshakeTimeout: tlsHandshakeTimeoutMs,
  };
  const agentCa = listener === 'opamp' ? agentCaPem : undefined;
  if (material.ca === undefined && agentCa === undefined) return base;
  const ca = [material.ca, agentCa].filter((pem): pem is string => pem !== undefined);
  // Only the OpAMP listener with a client CA enforces at the handshake (the UI and telemetry answer 403).
  const enforceAtHandshake = listener === 'opamp' && material.ca !== undefined;
  return { ...base, ca, requestCert: true, rejectUnauthorized: enforceAtHandshake };
}
