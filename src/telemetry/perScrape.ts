// A value computed at most once per scrape. prom-client runs every metric's collect() in the same
// synchronous pass of Registry.metrics(), so a value cached until the next microtask is shared by all
// the gauges of one scrape and never outlives it. Correctness does not depend on that: a call that
// finds no cached value simply computes it again.

export function perScrape<T>(compute: () => T): () => T {
  let cached: { value: T } | undefined;
  return () => {
    if (cached === undefined) {
      cached = { value: compute() };
      queueMicrotask(() => {
        cached = undefined;
      });
    }
    return cached.value;
  };
}
