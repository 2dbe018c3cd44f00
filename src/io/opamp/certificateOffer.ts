// The server side of OpAMP's CSR flow on the wire (issue 22; docs/security.md "Agent certificates"):
// an agent that authenticated sends connection_settings_request.opamp.certificate_request.csr and
// gets, in connection_settings.opamp, a certificate of the agent CA (agentCa.ts) naming its
// instance id, with the CA certificate and the OpAMP URL to reconnect to. Whether it gets one is
// decideCertificate's (pure); this module checks the CSR's shape, signs, records and encodes.
//
// Which ids a certificate was issued (or is being signed) for on each connection is part of what the
// connection was admitted for, so it is kept with the rest in connectionOwners.ts (the handler passes
// it in), where revocation and close drop it; what is per id on any connection (the one outstanding
// signature, the hourly rate per credential) is kept here.
//
// Contract with the handler (one call per message that carries a CSR, after the report limits):
// - a refusal known at once (unauthenticated, another agent's certificate, a CSR that does not
//   parse) is answered instead of the message, with ServerErrorResponse BadRequest, counted, and
//   nothing of the message is folded;
// - otherwise the message is handled as usual and the answer follows its reply as a second
//   ServerToAgent (`after`): the offer, or a BadRequest for a CSR whose signature does not verify.
//   Over WebSocket it is sent as soon as it is ready; a plain-HTTP request waits for it, and an
//   offer joins that request's reply (httpTransport.ts). A plain-HTTP CSR whose signature does not
//   verify is counted and logged only: an error cannot join a reply to a message that was folded.
// - the offer also carries the agent's own-telemetry settings when it has any (`ownTelemetry`, read
//   when the certificate is ready), so the one ServerToAgent states all its connection settings and
//   its hash covers all of them: SHA-256 of the certificate alone, or of the certificate and the
//   own-telemetry offer's hash. A plain-HTTP reply that also carried the own-telemetry offer is
//   merged with this one by the agent (fields concatenated), and the merge holds the same settings
//   under this hash.

import { createHash } from 'node:crypto';
import type { InstanceUid } from '../../events/ids.ts';
import { credentialLabel } from '../../projections/identity/agentCredential.ts';
import type { CredentialStore } from '../../projections/identity/credentialStore.ts';
import { decideCertificate, decideIssue } from '../../projections/identity/decideCertificate.ts';
import type { AgentLog } from '../agentLog.ts';
import type { Logger } from '../logger.ts';
import type { AgentCa } from '../tls/agentCa.ts';
import { parseCsr } from '../tls/csr.ts';
import { encodeServerToAgent } from './codec.ts';
import { boundsOf, type OpampConnection } from './connection.ts';
import type { ConnectionOwners } from './connectionOwners.ts';
import type { OwnTelemetryOffer } from '../../projections/ownTelemetry/ownTelemetry.ts';
import { ownTelemetryFields } from './ownTelemetryWire.ts';
import { createIssueRate } from './issueRate.ts';
import { certificateCapabilities } from './reply.ts';
import type { ConnectionSettingsOfferFields } from './wireTypes.ts';

const BadRequest = 1;

export type CertificateAnswer =
  | { readonly refused: string }
  /** A ServerToAgent (after the connection's reply headroom) to send after the reply; none when undefined. */
  | { readonly after: Promise<Uint8Array | undefined> };

/** Where the certificates issued on each connection are recorded (connectionOwners.ts). */
export type IssuedOnConnections = Pick<ConnectionOwners, 'markIssued' | 'unmarkIssued' | 'wasIssued'>;

export interface CertificateOffers {
  /** Server capability bits the service declares besides its own (reply.ts). */
  readonly capabilities: number;
  /** The answer to a message's CSR (`csr` as decoded); see the file comment. */
  answer(
    connection: OpampConnection,
    issued: IssuedOnConnections,
    uid: InstanceUid,
    uidBytes: Uint8Array,
    csr: Uint8Array,
    at: number,
    ownTelemetry?: () => OwnTelemetryOffer | undefined,
  ): CertificateAnswer;
}

export interface CertificateOfferDeps {
  /** The agent CA; the service creates it before its listeners open. */
  readonly ca: AgentCa;
  readonly store: Pick<CredentialStore, 'recordIssued' | 'certificates'>;
  /** agents.ca.max_per_hour: certificates one credential may be issued an hour (decideIssue). */
  readonly maxPerHour: number;
  /** Where CSR refusals are logged, within each agent's log budget; `logger` when absent. */
  readonly agentLog?: AgentLog;
  /** svc_opamp_refused_total{reason}. */
  readonly refused: (reason: string) => void;
  /** fleet.heartbeat_interval: sent with the offer, as an offer without one stops opamp-go's heartbeats. */
  readonly heartbeatIntervalMs: number;
  readonly logger: Logger;
}

/** The offer's hash: the certificate's SHA-256 (and the own-telemetry offer's), so a repeated offer is recognisably the same. */
const hashOf = (certPem: string, own: OwnTelemetryOffer | undefined): Uint8Array => {
  const hash = createHash('sha256').update(certPem);
  if (own !== undefined) hash.update('\n').update(own.hash);
  return hash.digest();
};

export function createCertificateOffers(deps: CertificateOfferDeps): CertificateOffers {
  const { ca, logger } = deps;
  /** Ids whose CSR is being checked or signed, on any connection: at most one outstanding per id. */
  const signing = new Set<InstanceUid>();
  const rate = createIssueRate();
  const warn = (uid: InstanceUid, fields: Record<string, unknown>, message: string) =>
    deps.agentLog ? deps.agentLog.write('warn', uid, fields, message) : logger.warn(fields, message);
  const heartbeatIntervalSeconds = Math.max(1, Math.ceil(deps.heartbeatIntervalMs / 1000));

  const errorReply = (connection: OpampConnection, uidBytes: Uint8Array, text: string) =>
    encodeServerToAgent(
      { instanceUid: uidBytes, errorResponse: { type: BadRequest, errorMessage: text } },
      connection.replyHeadroom,
    );

  function offerReply(
    connection: OpampConnection,
    uidBytes: Uint8Array,
    certPem: string,
    own: OwnTelemetryOffer | undefined,
  ): Uint8Array {
    const connectionSettings: ConnectionSettingsOfferFields = {
      hash: hashOf(certPem, own),
      ...(own === undefined ? {} : ownTelemetryFields(own)),
      opamp: {
        destinationEndpoint: connection.admission?.url ?? '',
        certificate: { cert: Buffer.from(certPem), caCert: Buffer.from(ca.caPem) },
        heartbeatIntervalSeconds,
      },
    };
    return encodeServerToAgent({ instanceUid: uidBytes, connectionSettings }, connection.replyHeadroom);
  }

  async function issue(
    connection: OpampConnection,
    uid: InstanceUid,
    uidBytes: Uint8Array,
    csr: Uint8Array,
    at: number,
    notIssued: () => void,
    ownTelemetry: (() => OwnTelemetryOffer | undefined) | undefined,
  ): Promise<Uint8Array | undefined> {
    const credential = connection.admission?.credential;
    const issuedBy = credential === undefined ? 'none' : credentialLabel(credential);
    // A plain-HTTP reply went with its message already folded: an error cannot join it.
    const refusal = (reason: string, text: string) => {
      deps.refused(reason);
      warn(uid, { uid, remoteAddr: connection.remoteAddr, reason: text }, 'CSR refused');
      return connection.transport === 'ws' ? errorReply(connection, uidBytes, text) : undefined;
    };
    const next = decideIssue({
      certificates: await deps.store.certificates(uid),
      issuedLastHour: rate.recent(issuedBy, at),
      maxPerHour: deps.maxPerHour,
      now: at,
    });
    if (next.action === 'keep') {
      logger.debug({ uid, why: next.why }, 'CSR answered with no new certificate');
      return undefined;
    }
    if (next.action === 'refuse') {
      notIssued();
      return refusal(next.reason, next.text);
    }
    rate.record(issuedBy, at);
    const signed = await ca.signAgentCsr({ csrPem: csr, instanceUid: uid, credential, now: at });
    if (!signed.ok) {
      notIssued();
      return refusal('csr_invalid', signed.reason);
    }
    const { serial, notBefore, notAfter } = signed;
    // The enrolling credential and its bounds travel with the certificate (issue 29; decideBind).
    const issuedTo = credential ? { kind: credential.kind, name: credential.name } : null;
    const bounds = boundsOf(connection.admission);
    await deps.store.recordIssued({
      serial,
      uid,
      notBefore,
      notAfter,
      issuedAt: at,
      issuedBy,
      issuedTo,
      bounds,
    });
    logger.info(
      { uid, serial, notAfter: new Date(notAfter).toISOString(), issuedBy },
      'agent certificate issued',
    );
    return offerReply(connection, uidBytes, signed.certPem, ownTelemetry?.());
  }

  function answer(
    connection: OpampConnection,
    issued: IssuedOnConnections,
    uid: InstanceUid,
    uidBytes: Uint8Array,
    csr: Uint8Array,
    at: number,
    ownTelemetry?: () => OwnTelemetryOffer | undefined,
  ): CertificateAnswer {
    const admission = connection.admission;
    const presented = admission?.presented?.instanceUid === uid ? admission.presented : undefined;
    const decision = decideCertificate({
      uid,
      trustDomain: ca.trustDomain,
      credential: admission?.credential,
      presented,
      issuedOnConnection: issued.wasIssued(uid, connection),
      now: at,
    });
    if (decision.action === 'refuse') return refuse(connection, uid, decision.reason, decision.text);
    const parsed = parseCsr(csr);
    if (!parsed.ok) return refuse(connection, uid, 'csr_invalid', parsed.reason);
    if (decision.action === 'keep') {
      logger.debug({ uid, why: decision.why }, 'CSR answered with no new certificate');
      return { after: Promise.resolve(undefined) };
    }
    if (signing.has(uid)) {
      logger.debug({ uid }, 'CSR answered with no new certificate: one is being issued for this id');
      return { after: Promise.resolve(undefined) };
    }
    issued.markIssued(uid, connection);
    signing.add(uid);
    // A CSR refused after all, or a certificate not issued, leaves the connection free to ask again.
    const notIssued = () => issued.unmarkIssued(uid, connection);
    const after = issue(connection, uid, uidBytes, csr, at, notIssued, ownTelemetry)
      .catch((error: unknown) => {
        // Reading, signing or recording failed: nothing is offered (an unrecorded certificate could
        // not be revoked).
        notIssued();
        logger.error({ err: error, uid }, 'agent certificate could not be issued');
        return undefined;
      })
      .finally(() => signing.delete(uid));
    return { after };
  }

  function refuse(
    connection: OpampConnection,
    uid: InstanceUid,
    reason: string,
    text: string,
  ): CertificateAnswer {
    deps.refused(reason);
    warn(uid, { uid, remoteAddr: connection.remoteAddr, reason: text }, 'CSR refused');
    return { refused: text };
  }

  return { capabilities: certificateCapabilities, answer };
}
