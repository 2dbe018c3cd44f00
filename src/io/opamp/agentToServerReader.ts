// The fast path of AgentToServer decoding: the fields the service reads, straight from the bytes into
// the decoder's one shape (decodedAgentToServer.ts, the report in domain terms: health and a
// description of plain string attributes read directly, the rest through the same translation the
// slow path uses), without protobufjs's message classes, Long objects or reflection.
// Conservative on purpose: whatever it does not decode exactly as protobufjs would (a field it does
// not read, a wire type that does not match, invalid UTF-8, a repeated singular message, which
// protobufjs merges, a second member of a oneof, deep nesting, truncation) makes it give up, and
// decoder.ts decodes the message with protobufjs, which then decides, and throws on malformed input.
// A new field the service reads must be added here or it is decoded by protobufjs alone (slower,
// never wrong). spec/io/opamp/agentToServerReader.spec.ts holds both decoders to the same results.

import type { AgentDescription } from '../../events/agentData.ts';
import { keyValue } from './anyValueReader.ts';
import type { DecodedAgentToServer } from './decodedAgentToServer.ts';
import { readHealth } from './healthReader.ts';
import { checkMapKey, giveUp, Reader, type ReadTables } from './protoReader.ts';
import type { SharedText } from './sharedText.ts';
import {
  toConnectionSettingsStatus,
  toDescription,
  toEffectiveConfig,
  toRemoteConfigStatus,
} from './wireToData.ts';
import type { WireAgentToServer, WireKeyValue } from './wireTypes.ts';

const noBytes: Uint8Array = new Uint8Array(0);

// Each reader below starts at a length-delimited sub-message and reads it whole.

type ConfigFiles = Record<string, { body: Uint8Array; contentType: string }>;

/** AgentConfigMap.config_map entry {1: key, 2: AgentConfigFile {1: body, 2: content_type}}. */
function configEntry(r: Reader, files: ConfigFiles): void {
  const outer = r.enter();
  let key: string | undefined;
  let file: { body: Uint8Array; contentType: string } | undefined;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12 && file === undefined) {
      const fileOuter = r.enter();
      file = { body: noBytes, contentType: '' };
      while (r.pos < r.end) {
        const fileTag = r.uint32();
        if (fileTag === 0x0a) file.body = r.bytes();
        else if (fileTag === 0x12) file.contentType = r.string();
        else throw giveUp;
      }
      r.leave(fileOuter);
    } else throw giveUp;
  }
  r.leave(outer);
  if (file === undefined) throw giveUp;
  files[checkMapKey(key)] = file;
}

function effectiveConfig(r: Reader): NonNullable<WireAgentToServer['effectiveConfig']> {
  const outer = r.enter();
  let files: ConfigFiles | undefined;
  while (r.pos < r.end) {
    if (r.uint32() !== 0x0a || files !== undefined) throw giveUp;
    files = {};
    const mapOuter = r.enter();
    while (r.pos < r.end) {
      if (r.uint32() !== 0x0a) throw giveUp;
      configEntry(r, files);
    }
    r.leave(mapOuter);
  }
  r.leave(outer);
  return files === undefined ? {} : { configMap: { configMap: files } };
}

/**
 * RemoteConfigStatus and ConnectionSettingsStatus alike: {1: hash bytes, 2: status enum, 3:
 * error_message}.
 */
function hashStatus(r: Reader): { hash: Uint8Array; status: number; errorMessage: string } {
  const outer = r.enter();
  const s = { hash: noBytes, status: 0, errorMessage: '' };
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) s.hash = r.bytes();
    else if (tag === 0x10) {
      s.status = r.uint32();
      if (s.status > 0x7fffffff) throw giveUp;
    } else if (tag === 0x1a) s.errorMessage = r.string();
    else throw giveUp;
  }
  r.leave(outer);
  return s;
}

function remoteConfigStatus(r: Reader): NonNullable<WireAgentToServer['remoteConfigStatus']> {
  const { hash, status, errorMessage } = hashStatus(r);
  return { lastRemoteConfigHash: hash, status, errorMessage };
}

function connectionSettingsStatus(r: Reader): NonNullable<WireAgentToServer['connectionSettingsStatus']> {
  const { hash, status, errorMessage } = hashStatus(r);
  return { lastConnectionSettingsHash: hash, status, errorMessage };
}

/**
 * One attribute whose value is a plain string (KeyValue {1: key, 2: AnyValue {1: string}}) into
 * `into`, as toAttributes would set it; false on any other shape (the caller starts over).
 */
function plainAttribute(r: Reader, into: Record<string, string>): boolean {
  const outer = r.enter();
  let key = '';
  let value: string | undefined;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12 && value === undefined) {
      const kvEnd = r.enter();
      if (r.pos >= r.end || r.uint32() !== 0x0a) return false;
      value = r.string();
      if (r.pos !== r.end) return false;
      r.leave(kvEnd);
    } else return false;
  }
  if (value === undefined) return false;
  r.leave(outer);
  into[key] = value;
  return true;
}

/**
 * A description whose attributes are all plain strings (nearly every agent's), read straight into
 * the domain's AgentDescription; undefined when one is not, and the reader is left anywhere.
 */
function plainDescription(r: Reader): AgentDescription | undefined {
  const outer = r.enter();
  const identifying: Record<string, string> = {};
  const nonIdentifying: Record<string, string> = {};
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) {
      if (!plainAttribute(r, identifying)) return undefined;
    } else if (tag === 0x12) {
      if (!plainAttribute(r, nonIdentifying)) return undefined;
    } else throw giveUp;
  }
  r.leave(outer);
  return { identifying, nonIdentifying };
}

function description(r: Reader): NonNullable<WireAgentToServer['agentDescription']> {
  const outer = r.enter();
  const d = { identifyingAttributes: [] as WireKeyValue[], nonIdentifyingAttributes: [] as WireKeyValue[] };
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) d.identifyingAttributes.push(keyValue(r, 0));
    else if (tag === 0x12) d.nonIdentifyingAttributes.push(keyValue(r, 0));
    else throw giveUp;
  }
  r.leave(outer);
  return d;
}

/**
 * One sub-message holding at most one field 1 (the only field of ConnectionSettingsRequest,
 * OpAMPConnectionSettingsRequest and CertificateRequest alike), read by `inner`; anything else, or a
 * repeated field 1 (which protobufjs merges or replaces), makes the reader give up.
 */
function onlyFieldOne<T>(r: Reader, inner: (r: Reader) => T): T | undefined {
  const outer = r.enter();
  let value: T | undefined;
  let seen = false;
  while (r.pos < r.end) {
    if (r.uint32() !== 0x0a || seen) throw giveUp;
    seen = true;
    value = inner(r);
  }
  r.leave(outer);
  return value;
}

/**
 * connection_settings_request {1: opamp {1: certificate_request {1: csr}}}: the CSR's bytes (empty
 * when the request holds none), or undefined when no certificate is asked for (as fromWire reads it).
 */
const certificateRequest = (r: Reader): Uint8Array | undefined =>
  onlyFieldOne(r, (opamp) =>
    onlyFieldOne(opamp, (request) => onlyFieldOne(request, (csr) => csr.bytes()) ?? noBytes),
  );

type Draft = { -readonly [K in keyof DecodedAgentToServer]: DecodedAgentToServer[K] };

function agentToServer(r: Reader, bodies: SharedText): DecodedAgentToServer {
  const msg: Draft = {
    instanceUid: noBytes,
    flags: 0n,
    sequenceNum: 0n,
    capabilities: 0n,
    description: undefined,
    health: undefined,
    effectiveConfig: undefined,
    packageStatuses: undefined,
    // available_components (field 14) is rare: protobufjs reads it (the default case gives up).
    availableComponents: undefined,
    remoteConfigStatus: undefined,
    connectionSettingsStatus: undefined,
    disconnect: false,
    customMessage: undefined,
    certificateRequest: undefined,
  };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag) {
      case 0x0a:
        msg.instanceUid = r.bytes();
        break;
      case 0x10:
        msg.sequenceNum = r.uint64();
        break;
      case 0x1a: {
        if (msg.description !== undefined) throw giveUp;
        // Plain string attributes go straight into domain terms; anything else through AnyValues.
        const { pos, end } = r;
        const plain = plainDescription(r);
        if (plain !== undefined) msg.description = plain;
        else {
          r.pos = pos;
          r.end = end;
          msg.description = toDescription(description(r));
        }
        break;
      }
      case 0x20:
        msg.capabilities = r.uint64();
        break;
      case 0x2a:
        // Health goes straight into domain terms (healthReader.ts).
        if (msg.health !== undefined) throw giveUp;
        msg.health = readHealth(r, 0);
        break;
      case 0x32:
        if (msg.effectiveConfig !== undefined) throw giveUp;
        msg.effectiveConfig = toEffectiveConfig(effectiveConfig(r), bodies);
        break;
      case 0x3a:
        if (msg.remoteConfigStatus !== undefined) throw giveUp;
        msg.remoteConfigStatus = toRemoteConfigStatus(remoteConfigStatus(r));
        break;
      case 0x4a:
        // AgentDisconnect is empty: its presence is the signal.
        if (r.uint32() !== 0) throw giveUp;
        msg.disconnect = true;
        break;
      case 0x50:
        msg.flags = r.uint64();
        break;
      case 0x5a:
        // connection_settings_request (a CSR): a second one is merged by protobufjs, which decides then.
        if (msg.certificateRequest !== undefined) throw giveUp;
        msg.certificateRequest = certificateRequest(r);
        break;
      case 0x7a:
        // connection_settings_status (field 15).
        if (msg.connectionSettingsStatus !== undefined) throw giveUp;
        msg.connectionSettingsStatus = toConnectionSettingsStatus(connectionSettingsStatus(r));
        break;
      default:
        throw giveUp;
    }
  }
  return msg;
}

/**
 * The decoded message, or undefined when protobufjs must decode it (see the file comment). `tables`
 * and `bodies` are the decoder's own (decoder.ts).
 */
export function readAgentToServer(
  bytes: Uint8Array,
  tables: ReadTables,
  bodies: SharedText,
): DecodedAgentToServer | undefined {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return agentToServer(new Reader(buf, 0, buf.length, tables), bodies);
  } catch (error) {
    if (error === giveUp) return undefined;
    throw error;
  }
}
