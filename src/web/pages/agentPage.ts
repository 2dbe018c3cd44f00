// GET /agents/{id} and GET /partials/agents/{id}: the agent detail page and its fragment (no
// auto-poll; a refresh control reloads the fragment), with the jobs that touched the agent when
// persistence is on. SPEC UI rule 4: a miss is a 404 whose body is
// identical for an unknown agent, an id that cannot be an instance UID, and a store error (which is
// logged, never shown).

import type Router from '@koa/router';
import type { Context } from 'koa';
import { parseInstanceUid, type InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { readCredential } from '../read/agentCredentialRead.ts';
import { agentDetail, type RemoteConfigView } from '../views/agentView.ts';
import { agentJobRows, type AgentJobRow } from './agentJobs.ts';
import { agentStatus, statusLabels } from './agentStatus.ts';
import { configBadge, configHref } from './configStateLabels.ts';
import { agentHref } from './fleetModel.ts';
import { seesSecrets } from '../auth.ts';
import { codeView } from './codeView.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { parseBudget } from '../views/redactSecrets.ts';

/** The agent's remote config as its section shows it: state, desired and reported, with links. */
function remoteLocals(view: RemoteConfigView) {
  return {
    ...view,
    badge: configBadge(view.config_state),
    configs: view.desired_configs.map((c) => ({ ...c, href: configHref(c.name) })),
  };
}

function detailLocals(agent: AgentState, desired: DesiredConfig | undefined, now: number, reveal: boolean) {
  const view = agentDetail(agent, desired);
  const status = agentStatus(agent);
  const budget = parseBudget();
  const configs = Object.keys(agent.effectiveConfig ?? {})
    .sort()
    .map((name) => {
      const file = agent.effectiveConfig?.[name] ?? { body: '', contentType: '' };
      return {
        name: name || '(unnamed)',
        contentType: file.contentType,
        ...codeView(name, file.contentType, file.body, reveal, budget),
      };
    });
  return {
    now,
    agent: view,
    status,
    statusLabel: statusLabels[status],
    partialUrl: `/partials/agents/${encodeURIComponent(agent.uid)}`,
    href: agentHref(agent.uid),
    sequence: agent.sequenceNum.toString(),
    capabilities: Object.entries(view.capability_flags).map(([name, on]) => ({
      name: name.replaceAll('_', ' '),
      on,
    })),
    capabilitiesRaw: agent.capabilities.toString(),
    capabilitiesHex: `0x${agent.capabilities.toString(16)}`,
    configs,
    remote: remoteLocals(view.remote_config),
  };
}

/**
 * The jobs that touched the agent; undefined without persistence (the section is omitted). A store
 * that cannot answer leaves the section saying so, not the page failing.
 */
async function jobsLocals(
  deps: PagesDeps,
  uid: string,
): Promise<{ rows: AgentJobRow[]; unavailable: boolean } | undefined> {
  if (deps.jobs === undefined) return undefined;
  try {
    return { rows: agentJobRows(await deps.jobs.jobsOfAgent(uid)), unavailable: false };
  } catch (error) {
    deps.logger.error({ err: error, instance_uid: uid }, 'jobs of an agent could not be read');
    return { rows: [], unavailable: true };
  }
}

/** The agent's credential section; undefined without a credential store (the section is omitted). */
async function credentialLocals(deps: PagesDeps, uid: InstanceUid) {
  if (deps.credentials === undefined) return undefined;
  const view = await readCredential(deps.credentials, uid, deps.logger);
  return { view: view ?? null, unavailable: view === undefined };
}

/** The agent, or undefined for every kind of miss; store errors are logged here and nowhere shown. */
async function findAgent(deps: PagesDeps, id: string): Promise<AgentState | undefined> {
  const uid = parseInstanceUid(id);
  if (uid === undefined) return undefined;
  try {
    return await deps.reader.getAgent(uid);
  } catch (error) {
    deps.logger.error({ err: error, instance_uid: uid }, 'agent store read failed; answering 404');
    return undefined;
  }
}

const agentMissing = {
  id: 'agent-detail',
  title: 'Agent not found',
  text: 'No agent with this instance UID is known. It may have been evicted after missing its check-ins, or it has never connected.',
  href: '/',
  link: 'Back to the fleet',
};

export function sendNotFound(ctx: Context, deps: PagesDeps, fragment: boolean): void {
  const view = fragment ? 'partials/notFound' : 'notFound';
  const locals = { title: agentMissing.title, nav: 'fleet', now: deps.now(), missing: agentMissing };
  sendHtml(ctx, 404, deps.render(view, locals));
}

export function mountAgentPage(router: Router, deps: PagesDeps): void {
  router.get('/agents/:id', async (ctx) => {
    const agent = await findAgent(deps, ctx.params.id ?? '');
    if (agent === undefined) return sendNotFound(ctx, deps, false);
    const locals = detailLocals(agent, deps.desired.desiredFor(agent), deps.now(), seesSecrets(ctx));
    const jobs = await jobsLocals(deps, agent.uid);
    const credential = await credentialLocals(deps, agent.uid);
    const title = locals.agent.display_name;
    sendHtml(ctx, 200, deps.render('agent', { title, nav: 'fleet', ...locals, jobs, credential }));
  });
  router.get('/partials/agents/:id', async (ctx) => {
    const agent = await findAgent(deps, ctx.params.id ?? '');
    if (agent === undefined) return sendNotFound(ctx, deps, true);
    const locals = detailLocals(agent, deps.desired.desiredFor(agent), deps.now(), seesSecrets(ctx));
    const jobs = await jobsLocals(deps, agent.uid);
    const credential = await credentialLocals(deps, agent.uid);
    sendHtml(ctx, 200, deps.render('partials/agent', { ...locals, jobs, credential }));
  });
}
