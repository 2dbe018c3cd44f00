// A desired config on the wire: ServerToAgent field 3 (remote_config), encoded once per shared
// DesiredConfig and appended to every reply or push that carries it (protobuf lets a message's
// fields be concatenated). Pushing one config to 20,000 agents encodes it once, not 20,000 times.

import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { encodeAgentRemoteConfig } from './codec.ts';

const RemoteConfigTag = (3 << 3) | 2;
const utf8 = new TextEncoder();
const encoded = new WeakMap<DesiredConfig, Uint8Array>();

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
  let field = encoded.get(desired);
  if (field !== undefined) return field;
  const configMap: Record<string, { body: Uint8Array; contentType: string }> = {};
  for (const e of desired.entries)
    configMap[e.name] = { body: utf8.encode(e.body), contentType: e.contentType };
  const message = encodeAgentRemoteConfig({ config: { configMap }, configHash: hexBytes(desired.hash) });
  const prefix = [RemoteConfigTag, ...varint(message.length)];
  field = new Uint8Array(prefix.length + message.length);
  field.set(prefix);
  field.set(message, prefix.length);
  encoded.set(desired, field);
  return field;
}
