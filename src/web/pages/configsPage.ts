// GET /configs and GET /partials/configs: the remote configs with the agents each targets (counts
// over the merged fleet, as GET /api/configs gives them), the source and why it takes no writes,
// and the source's problems (files that do not parse). The fragment polls every ui.poll_interval.
// A catalog that cannot be read (the database is down) is a banner inside the fragment, so it goes
// away by itself once the catalog answers again.

import type Router from '@koa/router';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { matchAll } from '../../projections/filter/fleetFilter.ts';
import type { ConfigSummary } from '../../projections/remoteConfig/configCatalog.ts';
import { countConfigAgents, problemView } from '../views/configView.ts';
import { configRow, countColumns, sourceLocals } from './configsModel.ts';
import { configStateLabels } from './configStateLabels.ts';
import { newConfigUrl } from './configEditor.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { mayEdit } from './pageWriter.ts';

async function listLocals(deps: PagesDeps, writer: boolean) {
  let summaries: ConfigSummary[] = [];
  let unavailable = false;
  try {
    summaries = await deps.configs.list();
  } catch (error) {
    deps.logger.error({ err: error }, 'config catalog read failed; showing the configs page without configs');
    unavailable = true;
  }
  const fleet = await deps.reader.listAll(matchAll, 'ui');
  const counts = countConfigAgents(fleet.agents, (agent: AgentState) => deps.desired.desiredFor(agent));
  return {
    now: deps.now(),
    pollUrl: '/partials/configs',
    source: sourceLocals(deps.configs),
    problems: deps.configs.problems().map(problemView),
    rows: summaries.map((s) => configRow(s, counts.get(s.name))),
    countHeads: countColumns.map((state) => ({ state, label: configStateLabels[state] })),
    partial: fleet.partial,
    unavailable,
    // Texts follow the reader's role: an admin writes configs here.
    writer,
  };
}

export function mountConfigsPage(router: Router, deps: PagesDeps): void {
  router.get('/configs', async (ctx) => {
    const locals = await listLocals(deps, mayEdit(ctx));
    // The editor's entry, for those who may use it where the source takes writes.
    const newHref = mayEdit(ctx) && locals.source.writable ? newConfigUrl : undefined;
    sendHtml(ctx, 200, deps.render('configs', { title: 'Configs', nav: 'configs', newHref, ...locals }));
  });
  router.get('/partials/configs', async (ctx) => {
    sendHtml(ctx, 200, deps.render('partials/configs', await listLocals(deps, mayEdit(ctx))));
  });
}
