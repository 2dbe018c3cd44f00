// GET /api/agents (filtered, paginated summaries) and GET /api/agents/{id} (detail).

import { bodyShownTo } from '../auth.ts';
import { parseInstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { configStateOf } from '../../projections/remoteConfig/configState.ts';
import { parseFleetQuery } from '../../projections/filter/fleetFilter.ts';
import { parsePage } from '../query/page.ts';
import { agentDetail, agentSummary } from '../views/agentView.ts';
import { observed, type ApiDeps, type ApiRouter } from './apiDeps.ts';
import { credentialView } from './credentialView.ts';
import { sendJson } from './jsonResponse.ts';

export function agentRoutes(router: ApiRouter, deps: ApiDeps): void {
  router.get('/api/agents', observed('/api/agents', deps), async (ctx) => {
    const params = new URLSearchParams(ctx.querystring);
    const page = parsePage(params);
    if (!page.ok) return ctx.throw(400, page.error);
    const desiredFor = (agent: AgentState) => deps.desired.desiredFor(agent);
    const query = parseFleetQuery(params, {
      configStateOf: (agent) => configStateOf(agent, desiredFor(agent)),
    });
    if (!query.ok) return ctx.throw(400, query.error);
    const result = await deps.reader.listPage(query.filter, page.page, 'api');
    sendJson(ctx, 200, {
      agents: result.agents.map((agent) => agentSummary(agent, desiredFor(agent))),
      total: result.total,
      limit: page.page.limit,
      offset: page.page.offset,
      partial: result.partial,
    });
  });

  router.get('/api/agents/', (ctx) => ctx.throw(400, 'missing agent id'));

  router.get('/api/agents/:id', observed('/api/agents/{id}', deps), async (ctx) => {
    const id = ctx.params.id ?? '';
    const uid = parseInstanceUid(id);
    if (uid === undefined) return ctx.throw(404, `agent ${JSON.stringify(id)} not found`);
    let agent;
    try {
      agent = await deps.reader.getAgent(uid);
    } catch (error) {
      // SPEC "Errors": a store error on a registry miss is a 500 on the API.
      deps.logger.error({ err: error, uid }, 'agent store read failed');
      return ctx.throw(500, 'agent store unavailable', { expose: true });
    }
    if (agent === undefined) return ctx.throw(404, `agent ${JSON.stringify(id)} not found`);
    const detail = agentDetail(agent, deps.desired.desiredFor(agent), bodyShownTo(ctx));
    const credential = deps.credentials && (await credentialView(deps.credentials, uid, deps.logger));
    sendJson(ctx, 200, credential === undefined ? detail : { ...detail, credential });
  });
}
