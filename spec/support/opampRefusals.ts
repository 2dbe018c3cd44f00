// svc_opamp_refused_total by reason, read from a running service's /metrics.

import type { App } from '../../src/app.ts';

export async function opampRefusals(app: App): Promise<Record<string, number>> {
  const text = await (await fetch(`${app.urls.telemetry}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^svc_opamp_refused_total\{reason="([a-z_]+)"\} (\d+)$/gm))
    out[m[1]!] = Number(m[2]);
  return out;
}

/** The change of svc_opamp_refused_total{reason} while `act` runs. */
export async function refusedDuring(app: App, reason: string, act: () => Promise<unknown>): Promise<number> {
  const before = (await opampRefusals(app))[reason] ?? 0;
  await act();
  return ((await opampRefusals(app))[reason] ?? 0) - before;
}
