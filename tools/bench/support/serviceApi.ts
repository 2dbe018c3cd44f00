// The service's management API and metrics as a scenario reads them: JSON requests with a bearer
// token (an answer of 300 or more throws, naming the request and the answer), and refusal counts.

export type ApiCall = (method: string, path: string, json?: unknown) => Promise<Record<string, unknown>>;

export function apiClient(uiUrl: string, headers: Record<string, string>): ApiCall {
  return async (method, path, json) => {
    const res = await fetch(`${uiUrl}${path}`, {
      method,
      headers,
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
}

/** svc_opamp_refused_total by reason, from the service's own metrics. */
export async function refusals(telemetryUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${telemetryUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^svc_opamp_refused_total\{reason="([^"]+)"[^}]*\} (\S+)$/gm))
    out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  return out;
}
