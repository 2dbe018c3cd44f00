// The remote config read API (docs/remote-config.md "API"): the configs with the agents they target,
// one config with its body, its revisions, one revision, and the agents a config targets with where
// each stands. Counts come from the merged fleet (this replica and, with persistence, the store).

import { bodyShownTo } from '../auth.ts';
import type { Context } from 'koa';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { matchAll } from '../../projections/filter/fleetFilter.ts';
import { configStateOf, configStates, type ConfigState } from '../../projections/remoteConfig/configState.ts';
import { parsePage } from '../query/page.ts';
import { displayName } from '../views/agentView.ts';
import { configView, countConfigAgents, problemView, revisionView } from '../views/configView.ts';
import type { ApiDeps, ApiRouter } from './apiDeps.ts';
import { sendJson } from './jsonResponse.ts';

export function revisionNumber(ctx: Context, text: string | undefined): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) return ctx.throw(400, `revision must be a positive integer`);
  return n;
}

export function configRoutes(router: ApiRouter, deps: ApiDeps): void {
  const desiredFor = (agent: AgentState) => deps.desired.desiredFor(agent);
  const fleet = async () => deps.reader.listAll(matchAll, 'api');

  router.get('/api/configs', async (ctx) => {
    const [summaries, agents] = await Promise.all([deps.configs.list(), fleet()]);
    const counts = countConfigAgents(agents.agents, desiredFor);
    sendJson(ctx, 200, {
      source: deps.configs.source,
      writable: deps.configs.readOnly === undefined,
      read_only_reason: deps.configs.readOnly?.reason ?? null,
      configs: summaries.map((s) => configView(s, counts.get(s.name))),
      problems: deps.configs.problems().map(problemView),
      partial: agents.partial,
    });
  });

  router.get('/api/configs/:name', async (ctx) => {
    const name = ctx.params.name ?? '';
    const summary = await deps.configs.get(name);
    if (summary === undefined) return ctx.throw(404, `no config ${name}`);
    const agents = await fleet();
    const counts = countConfigAgents(agents.agents, desiredFor).get(name);
    sendJson(ctx, 200, { ...configView(summary, counts, bodyShownTo(ctx)), partial: agents.partial });
  });

  router.get('/api/configs/:name/revisions', async (ctx) => {
    const name = ctx.params.name ?? '';
    const [summary, revisions] = await Promise.all([deps.configs.get(name), deps.configs.revisions(name)]);
    if (summary === undefined || revisions === undefined) return ctx.throw(404, `no config ${name}`);
    const current = summary.current?.revision ?? null;
    sendJson(ctx, 200, { name, revisions: revisions.map((r) => revisionView(r, current, false)) });
  });

  router.get('/api/configs/:name/revisions/:revision', async (ctx) => {
    const name = ctx.params.name ?? '';
    const n = revisionNumber(ctx, ctx.params.revision);
    const [summary, revision] = await Promise.all([deps.configs.get(name), deps.configs.revision(name, n)]);
    if (summary === undefined || revision === undefined)
      return ctx.throw(404, `config ${name} has no revision ${n}`);
    sendJson(ctx, 200, {
      name,
      ...revisionView(revision, summary.current?.revision ?? null, bodyShownTo(ctx)),
    });
  });

  router.get('/api/configs/:name/agents', async (ctx) => {
    const name = ctx.params.name ?? '';
    if ((await deps.configs.get(name)) === undefined) return ctx.throw(404, `no config ${name}`);
    const params = new URLSearchParams(ctx.querystring);
    const page = parsePage(params);
    if (!page.ok) return ctx.throw(400, page.error);
    const wanted = params.get('config_state');
    if (wanted !== null && !configStates.includes(wanted as ConfigState))
      return ctx.throw(400, `config_state must be one of ${configStates.join(', ')}`);
    const all = await fleet();
    const rows = all.agents.flatMap((agent) => {
      const desired = desiredFor(agent);
      if (desired === undefined || !desired.entries.some((e) => e.name === name)) return [];
      const state = configStateOf(agent, desired);
      return wanted === null || state === wanted ? [{ agent, desired, state }] : [];
    });
    const { offset, limit } = page.page;
    sendJson(ctx, 200, {
      name,
      total: rows.length,
      limit,
      offset,
      partial: all.partial,
      agents: rows.slice(offset, offset + limit).map(({ agent, desired, state }) => ({
        instance_uid: agent.uid,
        display_name: displayName(agent),
        connected: agent.connected,
        config_state: state,
        desired_hash: desired.hash,
        reported_hash: agent.remoteConfigStatus?.hash ?? '',
        error_message: agent.remoteConfigStatus?.errorMessage ?? '',
      })),
    });
  });
}
