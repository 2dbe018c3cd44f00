// The AgentToServer decoder behind one interface: bytes in, the decoder's one shape out
// (decodedAgentToServer.ts: the envelope the handler reads, the report in domain terms). It owns
// everything decoding keeps from message to message: the fast reader's intern table and repeated
// timestamps (protoReader.ts), and the shared effective-config bodies (sharedText.ts). The
// composition creates one (src/fleetCore.ts) and hands it to the handler; there is no module-level
// decoding state, so two cores in one process (a spec, a replay beside a service) never share one.
//
// Two paths, one result: the hand-written reader (agentToServerReader.ts) decodes status reports;
// whatever it does not read exactly as protobufjs would, protobufjs decodes, and translation
// (wireToData.ts fromWire) makes the same shape of it. tools/bench scenario "decoder" keeps the
// hand-written reader honest against protobufjs's generated code.

import { readAgentToServer } from './agentToServerReader.ts';
import { decodeAgentToServerWire } from './codec.ts';
import type { DecodedAgentToServer } from './decodedAgentToServer.ts';
import { createReadTables } from './protoReader.ts';
import { createSharedText, type SharedText } from './sharedText.ts';
import { fromWire } from './wireToData.ts';

export interface Decoder {
  /** Throws on bytes that are not an AgentToServer (the handler turns that into an error reply). */
  decode(bytes: Uint8Array): DecodedAgentToServer;
  /** The shared effective-config bodies (held characters, decodes; for metrics and specs). */
  readonly configBodies: Pick<SharedText, 'held' | 'decodes'>;
}

export interface DecoderOptions {
  /** Characters of effective-config bodies kept for sharing (two generations of this). */
  readonly sharedBodyChars?: number;
  /** Bodies longer than this are never shared. */
  readonly maxSharedBodyChars?: number;
}

export function createDecoder(options: DecoderOptions = {}): Decoder {
  const tables = createReadTables();
  const bodies = createSharedText({
    maxChars: options.sharedBodyChars ?? 8 * 1024 * 1024,
    maxTextChars: options.maxSharedBodyChars ?? 1024 * 1024,
  });
  return {
    decode: (bytes) =>
      readAgentToServer(bytes, tables, bodies) ?? fromWire(decodeAgentToServerWire(bytes), bodies),
    configBodies: bodies,
  };
}
