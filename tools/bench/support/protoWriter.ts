// A minimal protobuf writer for the load generators: tags, varints, length-delimited fields and
// fixed64, enough to encode AgentToServer parts by field number (OPAMP.md §2). The benchmarks encode
// their traffic with this instead of the service's codec, so the load does not change when the
// codec under test does. Protobuf fields of one message may be concatenated in any order.

export type Part = Uint8Array;

export function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

const tag = (field: number, wireType: number) => varint((field << 3) | wireType);

export const varintField = (field: number, n: number | bigint): Part =>
  Uint8Array.from([...tag(field, 0), ...varint(n)]);

export const boolField = (field: number, b: boolean): Part => varintField(field, b ? 1 : 0);

export function fixed64Field(field: number, n: bigint): Part {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(n);
  return Uint8Array.from([...tag(field, 1), ...out]);
}

export function bytesField(field: number, ...parts: readonly (Part | string)[]): Part {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
  return Buffer.concat([Uint8Array.from([...tag(field, 2), ...varint(body.length)]), body]);
}

/** A message field (length-delimited) made of sub-fields. */
export const messageField = (field: number, ...parts: readonly Part[]): Part => bytesField(field, ...parts);

export const concat = (...parts: readonly Part[]): Buffer => Buffer.concat(parts);
