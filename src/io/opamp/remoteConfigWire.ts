// A desired config on the wire: ServerToAgent field 3 (remote_config), appended to every reply or
// push that carries it (protobuf lets a message's fields be concatenated). The encoder (codec.ts)
// keeps the field per shared DesiredConfig, so pushing one config to 20,000 agents encodes it once.

import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { opampTypes } from './protobufTypes.ts';
import type { AgentRemoteConfigFields } from './wireTypes.ts';

const RemoteConfigTag = (3 << 3) | 2;
const utf8 = new TextEncoder();

function encodeAgentRemoteConfig(fields: AgentRemoteConfigFields): Uint8Array {
  const { AgentRemoteConfig } = opampTypes();
  return AgentRemoteConfig.encode(AgentRemoteConfig.create(fields)).finish();
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
}

/** ServerToAgent field 3 with its tag and length, ready to append to an encoded ServerToAgent. */
export function remoteConfigField(desired: DesiredConfig): Uint8Array {
  const configMap: Record<string, { body: Uint8Array; contentType: string }> = {};
  for (const e of desired.entries)
    configMap[e.name] = { body: utf8.encode(e.body), contentType: e.contentType };
  const message = encodeAgentRemoteConfig({ config: { configMap }, configHash: hexBytes(desired.hash) });
  const prefix = [RemoteConfigTag, ...varint(message.length)];
  const field = new Uint8Array(prefix.length + message.length);
  field.set(prefix);
  field.set(message, prefix.length);
  return field;
}
