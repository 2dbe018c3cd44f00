// What the CSR-flow specs share: a service configured with OpAMP TLS, enrollment tokens and an agent
// CA (throwaway PKIs made by openssl), the AgentToServer that asks for a certificate, and the offer
// read back from a ServerToAgent.

import { createHash } from 'node:crypto';
import { agentMessage, description, type ServerToAgent, type WsAgent } from '../../support/agentClient.ts';
import { apiToken } from '../../support/apiTokens.ts';
import type { TestPki } from '../tls/testPki.ts';
import { request } from '../../web/api/apiClient.ts';

export const enrollToken = 'enroll-csr-51c0';
export const adminToken = 'admin-csr-token';
export const bearer = { Authorization: `Bearer ${enrollToken}` };
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Config keys of a service whose agent CA is `agentPki`'s and whose listener certificate is `serverPki`'s. */
export function certificateConfig(
  serverPki: TestPki,
  agentPki: TestPki,
  options: { tokens?: boolean; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const server = serverPki.server();
  return {
    opamp_tls: { cert_file: server.certFile, key_file: server.keyFile },
    auth: { api_tokens: [apiToken('ops', adminToken, 'admin')] },
    agents: {
      tokens: options.tokens === false ? [] : [{ name: 'fleet-a', sha256: sha256(enrollToken) }],
      ca: {
        cert_file: agentPki.ca.certFile,
        key_file: agentPki.ca.keyFile,
        trust_domain: 'example.org',
        validity: '24h',
      },
    },
    ...options.extra,
  };
}

/** An AgentToServer that reports a description and asks for a certificate. */
export const csrMessage = (uid: string, csr: string | Uint8Array) =>
  agentMessage(uid, {
    agentDescription: description({ 'service.name': 'csr-agent' }),
    connectionSettingsRequest: { opamp: { certificateRequest: { csr: Buffer.from(csr) } } },
  });

export interface Offer {
  readonly hash: Uint8Array;
  readonly opamp: {
    readonly destinationEndpoint: string;
    readonly heartbeatIntervalSeconds: string;
    readonly certificate: { readonly cert: Uint8Array; readonly caCert: Uint8Array };
  };
}

export const offerOf = (m: ServerToAgent) => m.connectionSettings as Offer | undefined;

/** Asks on `ws`: the reply to the message, then the offer that follows it (undefined if none did). */
export async function askCertificate(ws: WsAgent, uid: string, csrPem: string) {
  const reply = await ws.send(csrMessage(uid, csrPem));
  return { reply, offer: offerOf(await ws.next()) };
}

/**
 * Revokes `uid` through `ui` (a replica's UI URL) as an admin, once `ws` (holding the agent, on any
 * replica) is watched: the revoke route's status and the close code `ws` then gets.
 */
export async function revokeWhileConnected(ui: string, uid: string, ws: WsAgent) {
  const closed = new Promise<number>((resolve) => ws.socket.once('close', resolve));
  const revoked = await request(`${ui}/api/agents/${uid}/revoke`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}` },
  });
  return { status: revoked.status, closeCode: await closed };
}
