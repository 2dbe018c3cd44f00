// The image's HEALTHCHECK (Containerfile): exits 0 when the telemetry listener's /healthz answers 200
// within 2 s. The URL is the first argument, by default the telemetry listener's default address;
// a container whose listeners.telemetry differs gives its own, e.g.
// `--health-cmd 'node tools/container/healthcheck.ts http://127.0.0.1:9191/healthz'`.

const url = process.argv[2] ?? 'http://127.0.0.1:9090/healthz';
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  process.exitCode = response.status === 200 ? 0 : 1;
  if (response.status !== 200) console.error(`${url}: ${response.status}`);
} catch (error) {
  console.error(`${url}: ${(error as Error).message}`);
  process.exitCode = 1;
}
