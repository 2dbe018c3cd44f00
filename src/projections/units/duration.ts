// Go-style duration text ("500ms", "30s", "1m30s", "168h"), parsed to and formatted from milliseconds.

const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const whole = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;

/** Milliseconds, or undefined when the text is not a Go duration. "0" is zero. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (!whole.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(part)) ms += Number(amount) * (unitMs[unit ?? ''] ?? 0);
  return ms;
}

/** The text Go's time.Duration.String() gives: "30s", "1m30s", "168h0m0s", "500ms", "0s". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${trim(ms)}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  if (hours > 0) return `${hours}h${minutes}m${trim(seconds)}s`;
  if (minutes > 0) return `${minutes}m${trim(seconds)}s`;
  return `${trim(seconds)}s`;
}

const trim = (n: number): string => String(Number(n.toFixed(9)));
