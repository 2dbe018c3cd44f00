// GET /configs/{name} and GET /partials/configs/{name}/agents: one remote config with its settings,
// its body highlighted, its revisions with a diff between any two (`?from=N&to=M`), and the agents
// it targets with their config state (the fragment polls; `?config_state=S` keeps one state). An
// unknown name is a 404 page; a bad revision choice or state is a 400 that says why in the page.

import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ConfigRevisionRecord } from '../../events/configData.ts';
import type { ConfigSummary } from '../../projections/remoteConfig/configCatalog.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { matchAll } from '../../projections/filter/fleetFilter.ts';
import { configStates, type ConfigState } from '../../projections/remoteConfig/configState.ts';
import { configNameProblem } from '../../projections/remoteConfig/validateConfig.ts';
import { configView, countConfigAgents, revisionView } from '../views/configView.ts';
import { configAgentRows } from './configAgents.ts';
import { configBadge, configHref, configStateLabels, restoreUrl } from './configStateLabels.ts';
import { countColumns, sourceLocals } from './configsModel.ts';
import { queryString } from './fleetRequest.ts';
import { seesSecrets } from '../auth.ts';
import { redactSecrets } from '../views/redactSecrets.ts';
import { codeView } from './codeView.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { chooseRevisions } from './revisionChoice.ts';
import { revisionDiff } from './revisionDiff.ts';
import { mayEdit } from './pageWriter.ts';
import { previewChange } from '../write/configPreview.ts';

/** The agents table shows at most this many; GET /api/configs/{name}/agents pages through all. */
export const maxAgentRows = 200;

/** The page's own query (revision choice, state filter) with `edit` applied. */
function pageQuery(params: URLSearchParams, edit: Record<string, string | undefined>): string {
  const out = new URLSearchParams();
  for (const key of ['from', 'to', 'config_state']) {
    const value = key in edit ? edit[key] : params.get(key);
    if (value !== undefined && value !== null && value !== '') out.set(key, value);
  }
  return queryString(out);
}

/** The `config_state` the agents table keeps to, or why the given one is not a state. */
function parseState(params: URLSearchParams): { only?: ConfigState; error?: string } {
  const given = params.get('config_state') ?? '';
  if (given === '') return {};
  if (configStates.includes(given as ConfigState)) return { only: given as ConfigState };
  return { error: `config_state must be one of ${configStates.join(', ')}, got ${JSON.stringify(given)}` };
}

async function agentsLocals(deps: PagesDeps, name: string, params: URLSearchParams) {
  const { only, error } = parseState(params);
  const fleet = await deps.reader.listAll(matchAll, 'ui');
  const desiredFor = (agent: AgentState) => deps.desired.desiredFor(agent);
  const counts = countConfigAgents(fleet.agents, desiredFor).get(name);
  const rows = error === undefined ? configAgentRows(name, fleet.agents, desiredFor, only) : [];
  const href = (s: string | undefined) =>
    `${configHref(name)}${pageQuery(params, { config_state: s })}#agents`;
  const tiles = [
    {
      state: 'targeted',
      label: 'Targeted',
      value: counts?.targeted ?? 0,
      href: href(undefined),
      active: !only,
    },
    ...countColumns.map((s) => ({
      state: s,
      label: configStateLabels[s],
      value: counts?.[s] ?? 0,
      href: href(s),
      active: only === s,
    })),
  ];
  return {
    now: deps.now(),
    pollUrl: `/partials/configs/${encodeURIComponent(name)}/agents${pageQuery(params, {})}`,
    tiles,
    rows: rows.slice(0, maxAgentRows).map((r) => ({ ...r, badge: configBadge(r.state) })),
    total: rows.length,
    filterLabel: only === undefined ? '' : configStateLabels[only],
    clearHref: href(undefined),
    apiHref: `/api/configs/${encodeURIComponent(name)}/agents`,
    partial: fleet.partial,
    error,
  };
}

function revisionRows(
  name: string,
  revisions: readonly ConfigRevisionRecord[],
  current: number | null,
  editing: boolean,
) {
  return revisions.map((r, i) => {
    const older = revisions[i + 1];
    return {
      ...revisionView(r, current, false),
      diffHref: older === undefined ? '' : `${configHref(name)}?from=${older.revision}&to=${r.revision}#diff`,
      restoreHref: editing && r.revision !== current ? restoreUrl(name, r.revision) : '',
    };
  });
}

/** The editor's links on a config's page, for an admin where the source takes writes (docs/ui.md). */
function editLinks(
  deps: PagesDeps,
  name: string,
  latest: ConfigRevisionRecord,
  current: number | null,
  editing: boolean,
) {
  const rollout =
    editing &&
    deps.jobStore !== undefined &&
    deps.configs.source === 'database' &&
    latest.revision > (current ?? 0);
  return {
    editHref: editing ? `${configHref(name)}/edit` : '',
    rolloutHref: rollout ? `${configHref(name)}/rollout` : '',
  };
}

/**
 * A draft newer than the revision in force is sent to no agent yet; what it would target if it were
 * in force now is the editor's preview of it (issue 30), so the two pages never disagree.
 */
async function draftLocals(deps: PagesDeps, summary: ConfigSummary) {
  const { current, latest } = summary;
  if (latest.revision <= (current?.revision ?? 0)) return undefined;
  const preview = await previewChange(deps, {
    name: latest.name,
    selector: latest.selector,
    body: latest.body,
    contentType: latest.contentType,
    enabled: latest.enabled,
  });
  return { revision: latest.revision, wouldTarget: preview.targeted, partial: preview.partial };
}

async function configLocals(
  deps: PagesDeps,
  name: string,
  params: URLSearchParams,
  reveal: boolean,
  editing: boolean,
) {
  const [summary, revisions] = await Promise.all([deps.configs.get(name), deps.configs.revisions(name)]);
  if (summary === undefined || revisions === undefined || revisions.length === 0) return undefined;
  const current = summary.current?.revision ?? null;
  const shown = summary.current ?? summary.latest;
  const choice = chooseRevisions(
    params,
    revisions.map((r) => r.revision),
    current,
  );
  // Both sides redacted alike for a caller who does not see secrets, so the diff shows no value.
  const seen = (r: ConfigRevisionRecord | undefined) =>
    r === undefined || reveal ? r : { ...r, body: redactSecrets(r.body).text };
  const find = (n: number | undefined) => revisions.find((r) => r.revision === n);
  const diff = choice.ok ? revisionDiff(seen(find(choice.from)), seen(find(choice.to) ?? shown)!) : undefined;
  const [agents, draft] = await Promise.all([agentsLocals(deps, name, params), draftLocals(deps, summary)]);
  return {
    draft,
    config: configView(summary, undefined),
    source: sourceLocals(deps.configs),
    shown: {
      revision: shown.revision,
      current: summary.current !== null,
      ...codeView(name, shown.contentType, shown.body, reveal),
    },
    revisions: revisionRows(name, revisions, current, editing),
    ...editLinks(deps, name, summary.latest, current, editing),
    choices: revisions.map((r) => ({
      value: r.revision,
      // The revision's role now: a draft once rolled out or passed over is no longer "(draft)".
      label: `#${r.revision}${r.revision === current ? ' (current)' : r.revision > (current ?? 0) ? ' (draft)' : ''}`,
    })),
    diff,
    diffError: choice.ok ? undefined : choice.error,
    stateParam: params.get('config_state') ?? '',
    action: configHref(name),
    ...agents,
    status: !choice.ok || agents.error !== undefined ? 400 : 200,
  };
}

export function sendConfigNotFound(ctx: Context, deps: PagesDeps, fragment: boolean): void {
  const missing = {
    id: fragment ? 'config-agents' : 'config-detail',
    title: 'Config not found',
    text: 'No remote config has this name. It may have been removed, or its file may not parse (the configs page lists such files).',
    href: '/configs',
    link: 'Back to the configs',
  };
  const view = fragment ? 'partials/notFound' : 'notFound';
  sendHtml(ctx, 404, deps.render(view, { title: missing.title, nav: 'configs', now: deps.now(), missing }));
}

export function mountConfigPage(router: Router, deps: PagesDeps): void {
  router.get('/configs/:name', async (ctx) => {
    const name = ctx.params.name ?? '';
    if (configNameProblem(name) !== undefined) return sendConfigNotFound(ctx, deps, false);
    const editing = mayEdit(ctx) && deps.configs.readOnly === undefined;
    const params = new URLSearchParams(ctx.querystring);
    const locals = await configLocals(deps, name, params, seesSecrets(ctx), editing);
    if (locals === undefined) return sendConfigNotFound(ctx, deps, false);
    sendHtml(ctx, locals.status, deps.render('config', { title: name, nav: 'configs', ...locals }));
  });
  router.get('/partials/configs/:name/agents', async (ctx) => {
    const name = ctx.params.name ?? '';
    if (configNameProblem(name) !== undefined || (await deps.configs.get(name)) === undefined)
      return sendConfigNotFound(ctx, deps, true);
    const locals = await agentsLocals(deps, name, new URLSearchParams(ctx.querystring));
    sendHtml(ctx, locals.error === undefined ? 200 : 400, deps.render('partials/configAgents', locals));
  });
}
