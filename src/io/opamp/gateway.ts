// The gateway capability (SPEC OpAMP listener; OPAMP.md §4). A gateway multiplexes many agents over
// one WebSocket; before relaying a new downstream agent it sends an AgentToServer with no instance_uid
// and only a CustomMessage {capability, type "connect", data JSON {request_uid, remote_address,
// headers}}. The service answers "connectResult" {request_uid, accept, http_status_code}. Pure.

import type { DecodedAgentToServer } from './decodedAgentToServer.ts';

/** The project's own name, and Bindplane's, which behaves the same way. */
export const gatewayCapabilities: readonly string[] = Object.freeze([
  'com.vendor.opamp-gateway',
  'com.bindplane.opamp-gateway',
]);

/** The custom_capabilities every first reply carries: one object, so its encoding is reused. */
export const gatewayCustomCapabilities: { readonly capabilities: readonly string[] } = Object.freeze({
  capabilities: gatewayCapabilities,
});

export function isGatewayConnect(msg: DecodedAgentToServer): boolean {
  const cm = msg.customMessage;
  return (
    msg.instanceUid.length === 0 &&
    cm !== undefined &&
    cm.type === 'connect' &&
    gatewayCapabilities.includes(cm.capability)
  );
}

export interface GatewayAnswer {
  readonly accepted: boolean;
  readonly capability: string;
  readonly data: Uint8Array;
}

interface ConnectRequest {
  request_uid: string;
  remote_address?: string;
  headers?: Record<string, string[]>;
}

function parseConnect(data: Uint8Array): ConnectRequest | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const r = parsed as Record<string, unknown>;
  if (typeof r.request_uid !== 'string') return undefined;
  if (r.remote_address !== undefined && typeof r.remote_address !== 'string') return undefined;
  if (
    r.headers !== undefined &&
    (r.headers === null || typeof r.headers !== 'object' || Array.isArray(r.headers))
  )
    return undefined;
  return r as unknown as ConnectRequest;
}

/** Accepts well-formed connect data with 200; anything malformed is rejected with 400. */
export function answerGatewayConnect(capability: string, data: Uint8Array): GatewayAnswer {
  const request = parseConnect(data);
  const result = request
    ? { request_uid: request.request_uid, accept: true, http_status_code: 200 }
    : { request_uid: requestUidOf(data), accept: false, http_status_code: 400 };
  return { accepted: result.accept, capability, data: new TextEncoder().encode(JSON.stringify(result)) };
}

/** Best effort: echo the request_uid of a malformed request when it can be found at all. */
function requestUidOf(data: Uint8Array): string {
  const m = /"request_uid"\s*:\s*"([^"\\]{0,128})"/.exec(Buffer.from(data).toString('utf8'));
  return m?.[1] ?? '';
}
