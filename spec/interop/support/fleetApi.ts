// The service's JSON API as an operator reads it, for the interop specs: an agent's detail view and
// the filtered list, waited on until a real peer's report has reached them.

import type { App } from '../../../src/app.ts';
import { eventually } from '../../persistence/eventually.ts';

export type Json = Record<string, unknown>;

export async function apiGet(
  app: App,
  path: string,
  token?: string,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${app.urls.ui}${path}`, {
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
  return { status: res.status, json: (await res.json()) as Json };
}

/** The agent's detail view once `ready` holds for it (a peer reports in several messages). A
 * timeout names what the view last showed. */
export async function agentWhen(
  app: App,
  uid: string,
  ready: (agent: Json) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<Json> {
  let last: Json | undefined;
  const probe = async () => {
    const { status, json } = await apiGet(app, `/api/agents/${uid}`);
    if (status !== 200) return false;
    last = json;
    return ready(json) && json;
  };
  try {
    return await eventually(probe, `${what} (agent ${uid})`, { timeoutMs, everyMs: 200 });
  } catch (error) {
    const seen = JSON.stringify(last)?.slice(0, 2_000) ?? 'nothing';
    throw new Error(`${error instanceof Error ? error.message : String(error)}; last seen ${seen}`);
  }
}

/** The instance uids of `GET /api/agents` with these query parameters. */
export async function listedUids(app: App, query: string): Promise<string[]> {
  const { status, json } = await apiGet(app, `/api/agents?${query}`);
  if (status !== 200) throw new Error(`GET /api/agents?${query}: ${status} ${JSON.stringify(json)}`);
  return (json.agents as Json[]).map((a) => a.instance_uid as string);
}
