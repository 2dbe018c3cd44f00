// Byte sizes: a plain integer, or a number with a unit (KiB, MiB, GiB, KB, MB, GB, B).

const units: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

export function parseByteSize(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  const m = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(value);
  if (!m) return undefined;
  const unit = (m[2] ?? '').toLowerCase() || 'b';
  const factor = units[unit];
  return factor === undefined ? undefined : Number(m[1]) * factor;
}
