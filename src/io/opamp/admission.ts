// Who may open an OpAMP connection, and with what credential (docs/security.md "Agent credentials"),
// decided before a WebSocket upgrade or before a plain-HTTP body is read:
// - a certificate the agent CA issued (agents.ca; AgentCa.issuedAgent checks its signature, validity
//   and SPIFFE id) is a credential of its own, whatever else is configured: a revoked one (its
//   serial, or its id) is refused with 401 (reason `revoked`);
// - otherwise a certificate the OpAMP client CA verified (opamp_tls.client_ca_file), then the
//   enrollment token when tokens are configured (enrollment.ts), as before the agent CA existed.
// The admission travels on the request to the transport, which gives it to its connection.

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AgentCredential } from '../../projections/identity/agentCredential.ts';
import { parseSelector, type Selector } from '../../projections/filter/selector.ts';
import type { CredentialStore } from '../../projections/identity/credentialStore.ts';
import type { AgentCa, IssuedAgent } from '../tls/agentCa.ts';
import { spiffeIdOf } from '../tls/spiffeId.ts';
import type { Admission } from './connection.ts';
import type { Enrollment, EnrollmentRefusal } from './enrollment.ts';
import { subjectText } from './peer.ts';

export type AdmissionRefusal = EnrollmentRefusal | 'revoked' | 'store_unavailable' | 'certificate_unrecorded';

export type AdmissionResult =
  | { readonly ok: true; readonly admission: Admission }
  | { readonly ok: false; readonly reason: AdmissionRefusal };

export interface AdmissionDeps {
  readonly enrollment?: Enrollment | undefined;
  /** The agent CA (agents.ca); no agent certificates are accepted without one. */
  readonly agentCa?: AgentCa | undefined;
  /** Where revocations are (CredentialStore); needed with the agent CA. */
  readonly store?: Pick<CredentialStore, 'binding' | 'certificates'> | undefined;
  /** opamp_tls.client_ca_file is set: a certificate it verified is the credential. */
  readonly clientCa: boolean;
  /** agents.gateway_certificates: client certificate identities that may declare a gateway. */
  readonly gatewayCertificates?: readonly string[] | undefined;
  readonly now: () => number;
}

const admissionKey = Symbol('opamp admission');
type Admitted = IncomingMessage & { [admissionKey]?: Admission };

/** The admission opampServer.ts made for this request (undefined when it made none). */
export const admissionOf = (req: IncomingMessage): Admission | undefined => (req as Admitted)[admissionKey];

export const attachAdmission = (req: IncomingMessage, admission: Admission): void => {
  (req as Admitted)[admissionKey] = admission;
};

/**
 * The OpAMP URL the client reached: its scheme, its Host header and the path it asked for. An
 * admission's own function (createAdmission): the URL of the request before is handed out again when
 * its three parts are the same, as they are for nearly every agent of a listener, so a connection
 * keeps one shared string rather than its own (the URL is read only to answer a CSR).
 */
function createUrlOf(): (req: IncomingMessage) => string {
  let lastScheme = '';
  let lastHost = '';
  let lastPath = '';
  let lastUrl = '';
  return (req) => {
    const tls = (req.socket as TLSSocket).encrypted === true;
    const upgrade = req.headers.upgrade;
    const ws = upgrade !== undefined && upgrade.toLowerCase() === 'websocket';
    const scheme = ws ? (tls ? 'wss' : 'ws') : tls ? 'https' : 'http';
    const host = req.headers.host ?? `${req.socket.localAddress ?? ''}:${req.socket.localPort ?? ''}`;
    // Asked for every plain-HTTP request: no array for the query's split.
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (scheme === lastScheme && host === lastHost && path === lastPath) return lastUrl;
    lastScheme = scheme;
    lastHost = host;
    lastPath = path;
    lastUrl = `${scheme}://${host}${path}`;
    return lastUrl;
  };
}

/** A certificate the OpAMP client CA verified: its SPIFFE id when it has one, else its subject. */
function clientCertificate(socket: TLSSocket): AgentCredential | undefined {
  const cert = socket.getPeerCertificate();
  if (cert === null || Object.keys(cert).length === 0) return undefined;
  const spiffe = spiffeIdOf(cert.subjectaltname);
  const name = spiffe.ok ? spiffe.id : (subjectText(cert.subject as unknown as Record<string, string>) ?? '');
  return { kind: 'certificate', name, serial: cert.serialNumber.toLowerCase() };
}

/** A selector no description matches (an empty filter: tokenScope.ts refuses every description). */
const unparsable: Selector = Object.freeze({ text: '(unparsable)', matchers: [], filter: null });

export function createAdmission(
  deps: AdmissionDeps,
): (req: IncomingMessage) => AdmissionResult | Promise<AdmissionResult> {
  async function unlessRevoked(presented: IssuedAgent, url: string): Promise<AdmissionResult> {
    const store = deps.store;
    try {
      const [binding, certificates] = await Promise.all([
        store?.binding(presented.instanceUid),
        store?.certificates(presented.instanceUid),
      ]);
      const record = certificates?.find((c) => c.serial === presented.serial);
      if (binding?.revokedAt != null || (record !== undefined && record.revokedAt !== null))
        return { ok: false, reason: 'revoked' };
      // Its enrolling credential's bounds are on record only: without one they are unknown (issue 29).
      if (record === undefined) return { ok: false, reason: 'certificate_unrecorded' };
      const credential: AgentCredential = {
        kind: 'agent_certificate',
        name: presented.spiffeId,
        serial: presented.serial,
      };
      const parsed = record.bounds.selector === null ? undefined : parseSelector(record.bounds.selector);
      // A recorded selector that no longer parses admits no description (outsideScope of an empty one).
      const selector = parsed === undefined ? undefined : parsed.ok ? parsed.value : unparsable;
      const admission: Admission = { credential, presented, url, selector, gateway: record.bounds.gateway };
      return { ok: true, admission };
    } catch {
      return { ok: false, reason: 'store_unavailable' };
    }
  }

  const urlOf = createUrlOf();
  return (req) => {
    const url = urlOf(req);
    const socket = req.socket as TLSSocket;
    const verified = socket.encrypted === true && socket.authorized;
    const peer = verified ? socket.getPeerX509Certificate() : undefined;
    const presented = peer && deps.agentCa?.issuedAgent(peer, deps.now());
    if (presented !== undefined) return unlessRevoked(presented, url);
    const checked = deps.enrollment?.check(req.headers.authorization);
    if (checked !== undefined && !checked.ok) return checked;
    const certificate = verified && deps.clientCa ? clientCertificate(socket) : undefined;
    const token = checked?.token;
    const credential: AgentCredential | undefined =
      certificate ?? (token === undefined ? undefined : { kind: 'token', name: token });
    // Without a credential (open mode) any connection may be a gateway, as before credentials existed.
    const gateway =
      credential === undefined ||
      checked?.gateway === true ||
      (certificate !== undefined && deps.gatewayCertificates?.includes(certificate.name) === true);
    return {
      ok: true,
      admission: {
        credential,
        presented: undefined,
        url,
        selector: checked?.ok ? checked.selector : undefined,
        gateway,
      },
    };
  };
}
