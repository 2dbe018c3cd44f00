// Waits for a condition that a background process (a flush, a purge run) makes true. Not a timing
// assertion: the deadline only bounds how long a broken build takes to fail.

export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  { timeoutMs = 20_000, everyMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${last ? `: ${last instanceof Error ? last.message : JSON.stringify(last)}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
