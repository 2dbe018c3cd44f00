// JSON text for API responses. bigint values (capabilities, sequence_num: unsigned 64-bit) are
// written as bare JSON numbers with every digit kept, not as strings and not rounded through a double.

// JSON.rawJSON is in Node 24 (V8) but not yet in the TypeScript lib this project targets.
const { rawJSON } = JSON as unknown as { rawJSON: (text: string) => unknown };

const replacer = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? rawJSON(value.toString()) : value);

export function toJson(value: unknown): string {
  return JSON.stringify(value, replacer);
}
