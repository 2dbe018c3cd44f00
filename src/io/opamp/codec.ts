// Protobuf encoding of what the service sends, and protobufjs's reading of what agents send (the
// slow path of decoder.ts, and tools and specs that play the agent's part). The service's replies
// go through an Encoder (createEncoder): its fast writer (serverToAgentWriter.ts) writes the usual
// replies, protobufjs everything else, and it encodes each shared remote config once.

import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { opampTypes } from './protobufTypes.ts';
import { remoteConfigField } from './remoteConfigWire.ts';
import { createServerToAgentWriter } from './serverToAgentWriter.ts';
import type { AgentRemoteConfigFields, ServerToAgentFields, WireAgentToServer } from './wireTypes.ts';

/** protobufjs's decoding of an AgentToServer, wire data only. Throws on malformed bytes. */
export function decodeAgentToServerWire(bytes: Uint8Array): WireAgentToServer {
  return opampTypes().AgentToServer.decode(bytes) as unknown as WireAgentToServer;
}

/** protobufjs's encoding, after `headroom` zero bytes (a transport's framing, written in front). */
export function encodeServerToAgent(fields: ServerToAgentFields, headroom = 0): Uint8Array {
  const { ServerToAgent } = opampTypes();
  const bytes = ServerToAgent.encode(ServerToAgent.create(fields)).finish();
  if (headroom === 0) return bytes;
  const out = new Uint8Array(headroom + bytes.length);
  out.set(bytes, headroom);
  return out;
}

/** The service's encoder; one per core (it keeps what it encoded once for many replies). */
export interface Encoder {
  /** The reply's bytes after `headroom` zero bytes: the fast writer's, else protobufjs's. */
  encode(fields: ServerToAgentFields, headroom?: number): Uint8Array;
  /** ServerToAgent field 3 for `desired`, encoded once per DesiredConfig (remoteConfigWire.ts). */
  remoteConfigField(desired: DesiredConfig): Uint8Array;
}

export function createEncoder(): Encoder {
  const write = createServerToAgentWriter();
  const configs = new WeakMap<DesiredConfig, Uint8Array>();
  return {
    encode: (fields, headroom = 0) => write(fields, headroom) ?? encodeServerToAgent(fields, headroom),
    remoteConfigField(desired) {
      let field = configs.get(desired);
      if (field === undefined) configs.set(desired, (field = remoteConfigField(desired)));
      return field;
    },
  };
}

/** For tools and specs that play the agent's part. */
export function encodeAgentToServer(fields: Record<string, unknown>): Uint8Array {
  const { AgentToServer } = opampTypes();
  return AgentToServer.encode(AgentToServer.fromObject(fields)).finish();
}

/** A decoded ServerToAgent as an agent sees it (tools and specs). */
export type DecodedServerToAgent = ServerToAgentFields & {
  remoteConfig?: AgentRemoteConfigFields;
} & Record<string, unknown>;

export function decodeServerToAgent(bytes: Uint8Array): DecodedServerToAgent {
  const { ServerToAgent } = opampTypes();
  return ServerToAgent.toObject(ServerToAgent.decode(bytes), {
    longs: String,
    defaults: false,
  }) as never;
}
