// An agent's desired remote config: the AgentConfigMap with one entry per enabled config whose
// selector matches it, keyed by config name, and its config_hash. Agents that receive the same set of
// revisions share one DesiredConfig object (the adapter interns them), so an agent costs a pointer
// whatever the size of the bodies. Pure.
//
// config_hash is SHA-256 over a canonical encoding, the same on every replica and across restarts:
//   "opamp-fleet-config/1\n", then for each entry in ascending name order (UTF-16 code units, the
//   order the map's keys are sent and the Collector supervisor merges them in):
//   u32be(len(name)) name  u32be(len(content_type)) content_type  u32be(len(body)) body
// with every string as UTF-8 and every length in bytes. Sent as the 32 raw bytes, shown as hex.

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

export interface DesiredEntry {
  readonly name: string;
  readonly revision: number;
  readonly body: string;
  readonly contentType: string;
}

export interface DesiredConfig {
  /** Identity of the set of revisions: `name@revision` joined by commas, in name order. */
  readonly key: string;
  /** config_hash, lowercase hex of 32 bytes. */
  readonly hash: string;
  /** In ascending name order. Never empty: no matching config means no DesiredConfig at all. */
  readonly entries: readonly DesiredEntry[];
}

const utf8 = new TextEncoder();
const header = utf8.encode('opamp-fleet-config/1\n');

export const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

export function desiredKey(entries: readonly DesiredEntry[]): string {
  return entries.map((e) => `${e.name}@${e.revision}`).join(',');
}

/** The canonical config_hash of entries already in name order. */
export function configMapHash(entries: readonly DesiredEntry[]): string {
  const hasher = sha256.create().update(header);
  const length = new Uint8Array(4);
  const view = new DataView(length.buffer);
  const field = (text: string) => {
    const bytes = utf8.encode(text);
    view.setUint32(0, bytes.length);
    hasher.update(length).update(bytes);
  };
  for (const e of entries) {
    field(e.name);
    field(e.contentType);
    field(e.body);
  }
  return bytesToHex(hasher.digest());
}

/** A DesiredConfig for entries in name order; undefined for none (never an empty map). */
export function composeDesired(entries: readonly DesiredEntry[]): DesiredConfig | undefined {
  if (entries.length === 0) return undefined;
  return { key: desiredKey(entries), hash: configMapHash(entries), entries };
}

/** SHA-256 of a body's UTF-8 bytes, lowercase hex (a revision's body hash). */
export const bodyHashOf = (body: string): string => bytesToHex(sha256(utf8.encode(body)));
