// GET / (fleet page) and GET /partials/agents (fleet table fragment). The whole filtered set comes
// from the shared read path, is sorted by the UI-only `sort`/`order`, then paged (issue 6). An invalid
// query is a 400 that shows the parser's message in the page.

import type Router from '@koa/router';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { booleanFilterKeys, type FilterContext } from '../../projections/filter/fleetFilter.ts';
import { configStateOf, configStates } from '../../projections/remoteConfig/configState.ts';
import { configStateLabels } from './configStateLabels.ts';
import { activeFilters, parseFleetRequest, queryString, type FleetRequest } from './fleetRequest.ts';
import { agentRow, tableLocals } from './fleetModel.ts';
import { historyLocals } from './charts/historyCharts.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { sortAgents } from './sortAgents.ts';
import { listAllLimit } from '../read/storedLists.ts';

const stateOf = (deps: PagesDeps) => (agent: AgentState) =>
  configStateOf(agent, deps.desired.desiredFor(agent));

async function tableFor(deps: PagesDeps, req: FleetRequest) {
  if (req.filter === undefined || req.error !== undefined) {
    return tableLocals(req, { rows: [], total: 0 }, false, req.error ?? 'invalid filter');
  }
  const set = await deps.reader.listAll(req.filter, 'ui', listAllLimit);
  const sorted = sortAgents(set.agents, req.sort);
  const { offset, limit } = req.page;
  const configState = stateOf(deps);
  const rows = sorted.slice(offset, offset + limit).map((a) => agentRow(a, req, configState(a)));
  // A set cut at the read path's limit is whole as far as the database goes: say what was cut instead.
  const limited = set.limited === true;
  return tableLocals(req, { rows, total: sorted.length }, set.partial && !limited, undefined, limited);
}

/** The Config select's options; a list typed into the URL (`pending,failed`) is kept as its own option. */
function configStateOptions(current: string) {
  const options: { value: string; label: string }[] = configStates.map((s) => ({
    value: s,
    label: configStateLabels[s],
  }));
  if (current !== '' && !options.some((o) => o.value === current))
    options.push({ value: current, label: current });
  return options;
}

function formLocals(req: FleetRequest) {
  const first = (key: string) => req.params.get(key) ?? '';
  const keep = new Set<string>([...booleanFilterKeys, 'config_state', 'offset']);
  const hidden = [...req.params].filter(([k]) => !keep.has(k)).map(([name, value]) => ({ name, value }));
  const sortOnly = new URLSearchParams();
  for (const k of ['sort', 'order', 'limit']) for (const v of req.params.getAll(k)) sortOnly.append(k, v);
  const filtered = [...req.params.keys()].some((k) => !['sort', 'order', 'limit', 'offset'].includes(k));
  return {
    healthy: first('healthy'),
    connected: first('connected'),
    via_gateway: first('via_gateway'),
    configState: first('config_state'),
    configStates: configStateOptions(first('config_state')),
    configStateNames: configStates.join(','),
    hidden,
    active: activeFilters(req),
    filtered,
    clearHref: `/${queryString(sortOnly)}`,
  };
}

const filterContext = (deps: PagesDeps): FilterContext => ({ configStateOf: stateOf(deps) });

export function mountFleetPage(router: Router, deps: PagesDeps): void {
  router.get('/', async (ctx) => {
    const req = parseFleetRequest(ctx.querystring, filterContext(deps));
    const table = await tableFor(deps, req);
    const html = deps.render('fleet', {
      title: 'Fleet',
      nav: 'fleet',
      now: deps.now(),
      form: formLocals(req),
      ...table,
      // Every query parameter of `/` is the fleet's filter, so the fleet page shows the last hour and
      // its window links lead to the status page.
      history: historyLocals(deps.history?.read('1h'), deps.now(), '1h'),
    });
    sendHtml(ctx, req.error === undefined ? 200 : 400, html);
  });

  router.get('/partials/agents', async (ctx) => {
    const req = parseFleetRequest(ctx.querystring, filterContext(deps));
    const table = await tableFor(deps, req);
    sendHtml(
      ctx,
      req.error === undefined ? 200 : 400,
      deps.render('partials/agents', { now: deps.now(), ...table }),
    );
  });
}
