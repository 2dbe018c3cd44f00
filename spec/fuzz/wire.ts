// Hand-built protobuf wire bytes for the fuzz suite: nesting deeper than protobufjs's own encoder
// allows (it refuses past its recursion limit), so the decoder and translation see what a hostile
// client could send. Every nested value is the last field of its parent, so a nest is a run of
// prefixes (computed inside out, each knowing the size of what it wraps) followed by the leaf.

export function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A length-delimited field. */
export const ld = (field: number, bytes: readonly number[]): number[] => [
  (field << 3) | 2,
  ...varint(bytes.length),
  ...bytes,
];
const text = (field: number, s: string): number[] => ld(field, [...Buffer.from(s)]);
/** The head of a length-delimited field whose body is `head` then `innerLength` more bytes. */
const open = (field: number, head: readonly number[], innerLength: number): number[] => [
  (field << 3) | 2,
  ...varint(head.length + innerLength),
  ...head,
];

function nest(
  leaf: readonly number[],
  depth: number,
  prefixOf: (level: number, innerLength: number) => number[],
): Uint8Array {
  const prefixes: number[][] = [];
  let size = leaf.length;
  for (let level = 0; level < depth; level++) {
    const prefix = prefixOf(level, size);
    prefixes.push(prefix);
    size += prefix.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (let i = prefixes.length - 1; i >= 0; i--) {
    out.set(prefixes[i]!, at);
    at += prefixes[i]!.length;
  }
  out.set(leaf, at);
  return out;
}

/** AnyValue nested `depth` times through kvlist_value or array_value (alternating when mixed). */
export function nestedAnyValue(depth: number, shape: 'kvlist' | 'array' | 'mixed'): Uint8Array {
  return nest(text(1, 'leaf'), depth, (level, inner) => {
    const asList = shape === 'kvlist' || (shape === 'mixed' && level % 2 === 0);
    if (!asList) return open(5, open(1, [], inner), inner); // array_value { values: <inner> }
    const keyValueHead = [...text(1, 'k'), 0x12, ...varint(inner)]; // KeyValue { key, value: <inner> }
    const listHead = open(1, keyValueHead, inner); // KeyValueList { values: KeyValue }
    return open(6, listHead, inner); // AnyValue { kvlist_value }
  });
}

/** ComponentHealth nested `depth` times through component_health_map. */
export function nestedHealth(depth: number): Uint8Array {
  return nest([0x08, 1, ...text(4, 'ok')], depth, (level, inner) => {
    const entryHead = [...text(1, `c${level % 10}`), 0x12, ...varint(inner)]; // map entry { key, value }
    return [0x08, 1, ...open(6, entryHead, inner)];
  });
}

/** AgentToServer with a 16-byte uid, capabilities 1, and one more field (already wire-encoded). */
export function agentToServer(uid: Uint8Array, field: Uint8Array): Uint8Array {
  const head = new Uint8Array([...ld(1, [...uid]), 0x20, 1]);
  const out = new Uint8Array(head.length + field.length);
  out.set(head);
  out.set(field, head.length);
  return out;
}

/** agent_description { identifying_attributes { key, value: <anyValue> } } */
export function describedBy(key: string, anyValue: Uint8Array): Uint8Array {
  const kvHead = [...text(1, key), 0x12, ...varint(anyValue.length)];
  const descHead = open(1, kvHead, anyValue.length);
  return concat(open(3, descHead, anyValue.length), anyValue);
}

/** AgentToServer.health = <health> */
export const withHealth = (health: Uint8Array): Uint8Array => concat(open(5, [], health.length), health);

function concat(head: number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}
