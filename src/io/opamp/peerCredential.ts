// The credential an OpAMP request authenticated with (issue 22; docs/security.md "Credential
// kinds"): a client certificate the listener's client CA verified (its SPIFFE id when it has one,
// else its subject, and its serial), else the enrollment token it presented (its configured name,
// never the token), else none (open mode). A token's selector bounds the agent whichever it is.

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AgentCredential } from '../../projections/identity/agentCredential.ts';
import { spiffeIdOf } from '../tls/spiffeId.ts';
import type { ConnectionAuth } from './connection.ts';
import type { EnrollmentCheck } from './enrollment.ts';
import { subjectText } from './peer.ts';

/** The verified client certificate of a request as a credential; undefined without one. */
export function certificateCredential(req: IncomingMessage): AgentCredential | undefined {
  const socket = req.socket as TLSSocket;
  if (socket.encrypted !== true || !socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  if (cert === null || typeof cert.serialNumber !== 'string') return undefined;
  const spiffe = spiffeIdOf(cert.subjectaltname);
  const subject = subjectText(cert.subject as unknown as Record<string, string> | undefined);
  const name = spiffe.ok ? spiffe.id : (subject ?? '');
  return { kind: 'certificate', name, serial: cert.serialNumber.toLowerCase() };
}

/** What a request admitted by its enrollment check authenticated with; undefined in open mode. */
export function connectionAuth(
  req: IncomingMessage,
  enrolled: Extract<EnrollmentCheck, { ok: true }> | undefined,
): ConnectionAuth | undefined {
  const token = enrolled?.token;
  const credential: AgentCredential | undefined =
    certificateCredential(req) ?? (token === undefined ? undefined : { kind: 'token', name: token });
  if (credential === undefined) return undefined;
  return { credential, selector: enrolled?.selector };
}
