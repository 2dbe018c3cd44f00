// What the binding specs share (issue 29; docs/security.md "The binding rule"): a service with OpAMP
// TLS, an agent CA and four enrollment tokens (one with a selector, one allowed to be a gateway), and
// an agent's way to enroll and move to its certificate over a real socket.

import { decodeServerToAgent, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { agentMessage, description, WsAgent, type ServerToAgent } from '../../support/agentClient.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { httpsRequest } from '../tls/httpsClient.ts';
import { opensslCsr } from '../tls/testCsr.ts';
import type { TestPki } from '../tls/testPki.ts';
import { adminToken, offerOf, sha256 } from './certificateFlow.ts';

export const tokens = {
  dev: 'enroll-dev-7f1e',
  victim: 'enroll-victim-2b9c',
  third: 'enroll-third-c4d0',
  gateway: 'enroll-gateway-9a31',
} as const;
export const bearerOf = (token: string) => ({ Authorization: `Bearer ${token}` });

export function bindingConfig(serverPki: TestPki, agentPki: TestPki, extra: Record<string, unknown> = {}) {
  const server = serverPki.server();
  return {
    opamp_tls: { cert_file: server.certFile, key_file: server.keyFile },
    auth: { api_tokens: [apiToken('ops', adminToken, 'admin')] },
    agents: {
      tokens: [
        { name: 'dev', sha256: sha256(tokens.dev), selector: 'env=dev' },
        { name: 'victim', sha256: sha256(tokens.victim) },
        { name: 'third', sha256: sha256(tokens.third) },
        { name: 'gw', sha256: sha256(tokens.gateway), gateway: true },
      ],
      ca: {
        cert_file: agentPki.ca.certFile,
        key_file: agentPki.ca.keyFile,
        trust_domain: 'example.org',
        validity: '24h',
      },
    },
    ...extra,
  };
}

export const describedAs = (uid: string, env: string, sequenceNum = 0) =>
  agentMessage(uid, { sequenceNum, agentDescription: description({ 'service.name': 'b', env }) });

export const gatewayConnect = () =>
  encodeAgentToServer({
    instanceUid: new Uint8Array(),
    customMessage: {
      capability: 'com.vendor.opamp-gateway',
      type: 'connect',
      data: new TextEncoder().encode('{"request_uid":"g1"}'),
    },
  });

export interface Enrolled {
  /** The socket it enrolled on with its token (left open). */
  readonly enrolling: WsAgent;
  /** Its certificate and key, with the listener's CA, for WsAgent.open and httpsRequest. */
  readonly tls: { readonly ca: string; readonly cert: string; readonly key: string };
}

/** An agent enrolls `uid` with `token` on `opamp` (described `env`), asks for a certificate, and keeps the socket. */
export async function enroll(
  opamp: string,
  serverCa: string,
  agentPki: TestPki,
  token: string,
  uid: string,
  env = 'dev',
): Promise<Enrolled> {
  const enrolling = await WsAgent.open(opamp, { ca: serverCa, headers: bearerOf(token) });
  const first = await enrolling.send(describedAs(uid, env));
  if (first.errorResponse !== undefined)
    throw new Error(`enrolling refused: ${first.errorResponse.errorMessage}`);
  const csr = opensslCsr(agentPki.dir, `agent-${uid.slice(0, 8)}`);
  const ask = agentMessage(uid, {
    sequenceNum: 1,
    agentDescription: description({ 'service.name': 'b', env }),
    connectionSettingsRequest: { opamp: { certificateRequest: { csr: Buffer.from(csr.csrPem) } } },
  });
  const reply = await enrolling.send(ask);
  if (reply.errorResponse !== undefined) throw new Error(`CSR refused: ${reply.errorResponse.errorMessage}`);
  const offer = offerOf(await enrolling.next());
  if (offer === undefined) throw new Error('no certificate offered');
  return {
    enrolling,
    tls: { ca: serverCa, cert: Buffer.from(offer.opamp.certificate.cert).toString(), key: csr.keyPem },
  };
}

/** A plain-HTTP poll over TLS: status and the ServerToAgent when there is one. */
export async function postHttps(
  opamp: string,
  body: Uint8Array,
  tls: { ca: string; cert?: string; key?: string },
  headers: Record<string, string> = {},
): Promise<{ status: number; message: ServerToAgent | undefined }> {
  const res = await httpsRequest(`${opamp}/v1/opamp`, tls, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/x-protobuf', ...headers },
  });
  const isProto = res.status === 200 && res.headers['content-type'] === 'application/x-protobuf';
  return { status: res.status, message: isProto ? decodeServerToAgent(res.body) : undefined };
}

/** The close code `agent` gets (at once when it was closed already). */
export const closeOf = (agent: WsAgent): Promise<number> =>
  new Promise((resolve) => {
    if (agent.closeCode !== undefined) return resolve(agent.closeCode);
    agent.socket.once('close', (code: number) => resolve(code));
  });
