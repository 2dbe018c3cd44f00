// Every write that succeeded is appended to the audit log with its actor (docs/security.md "Audit
// log"), in one place after the routes, so no write route can forget it: the route table below
// names each write path of the API and the pages, and how to read its target from the request or
// the answer. A route that records its own entry with `auditWrite` (auditHook.ts) is not recorded
// twice. Each entry is also logged as a structured line (`audit`), for log pipelines.

import type { Context, Middleware, Next } from 'koa';
import type { AuditAction, AuditEntryInput, AuditLog } from '../../projections/access/auditLog.ts';
import type { ConfigCatalog } from '../../projections/remoteConfig/configCatalog.ts';
import { recordAudit, type AuditHookState, type AuditSink } from './auditHook.ts';

type Target = Pick<AuditEntryInput, 'action' | 'targetKind' | 'target' | 'detail'>;

interface WriteRoute {
  readonly method: string;
  readonly path: RegExp;
  readonly via: 'api' | 'ui';
  target(
    ctx: Context,
    match: RegExpExecArray,
    configs: ConfigCatalog,
  ): Promise<Target | undefined> | Target | undefined;
}

const decode = (text: string | undefined) => decodeURIComponent(text ?? '');
const commands = 'arm|pause|resume|cancel|rollback|promote';

function jsonBody(ctx: Context): Record<string, unknown> {
  try {
    const body: unknown = typeof ctx.body === 'string' ? JSON.parse(ctx.body) : ctx.body;
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The path an htmx answer sends the browser to (`HX-Redirect: /configs/x`), its last segment decoded. */
const redirectedTo = (ctx: Context, prefix: string): string | undefined => {
  const to = ctx.response.get('HX-Redirect');
  return to.startsWith(prefix) ? decode(to.slice(prefix.length)) : undefined;
};

/** A config write that made a revision: a draft or a change, and its number. */
async function revisionWrite(configs: ConfigCatalog, name: string): Promise<Target> {
  const latest = (await configs.get(name))?.latest;
  const action: AuditAction = latest?.draft === true ? 'config.draft' : 'config.update';
  return { action, targetKind: 'config', target: name, detail: latest ? `revision ${latest.revision}` : '' };
}

const routes: readonly WriteRoute[] = [
  {
    method: 'POST',
    path: /^\/api\/configs$/,
    via: 'api',
    target: (ctx) => {
      const name = jsonBody(ctx).name;
      return typeof name === 'string'
        ? { action: 'config.create', targetKind: 'config', target: name, detail: '' }
        : undefined;
    },
  },
  {
    method: 'POST',
    path: /^\/new-config$/,
    via: 'ui',
    target: (ctx) => {
      const name = redirectedTo(ctx, '/configs/');
      return name === undefined
        ? undefined
        : { action: 'config.create', targetKind: 'config', target: name, detail: '' };
    },
  },
  {
    method: 'PUT',
    path: /^\/api\/configs\/([^/]+)$/,
    via: 'api',
    target: (_c, m, configs) => revisionWrite(configs, decode(m[1])),
  },
  {
    method: 'POST',
    path: /^\/configs\/([^/]+)\/edit$/,
    via: 'ui',
    target: (_c, m, configs) => revisionWrite(configs, decode(m[1])),
  },
  {
    method: 'DELETE',
    path: /^\/api\/configs\/([^/]+)$/,
    via: 'api',
    target: (_c, m) => ({ action: 'config.delete', targetKind: 'config', target: decode(m[1]), detail: '' }),
  },
  ...(['api', 'ui'] as const).map((via): WriteRoute => ({
    method: 'POST',
    path:
      via === 'api'
        ? /^\/api\/configs\/([^/]+)\/revisions\/(\d+)\/restore$/
        : /^\/configs\/([^/]+)\/revisions\/(\d+)\/restore$/,
    via,
    target: (_c, m) => ({
      action: 'config.restore',
      targetKind: 'config',
      target: decode(m[1]),
      detail: `revision ${m[2]}`,
    }),
  })),
  {
    method: 'POST',
    path: /^\/configs\/([^/]+)\/rollout$/,
    via: 'ui',
    target: (ctx, m) => {
      const job = redirectedTo(ctx, '/jobs/');
      return job === undefined
        ? undefined
        : { action: 'rollout.create', targetKind: 'job', target: job, detail: `config ${decode(m[1])}` };
    },
  },
  {
    method: 'POST',
    path: /^\/api\/jobs$/,
    via: 'api',
    target: (ctx) => {
      const { id, action } = jsonBody(ctx);
      return typeof id === 'string'
        ? {
            action: 'job.create',
            targetKind: 'job',
            target: id,
            detail: typeof action === 'string' ? action : '',
          }
        : undefined;
    },
  },
  ...(['api', 'ui'] as const).map((via): WriteRoute => ({
    method: 'POST',
    path: new RegExp(`^${via === 'api' ? '/api' : ''}/jobs/([^/]+)/(${commands})$`),
    via,
    target: (_c, m) => ({
      action: `job.${m[2]}` as AuditAction,
      targetKind: 'job',
      target: decode(m[1]),
      detail: '',
    }),
  })),
  {
    method: 'POST',
    path: /^\/api\/agents\/([^/]+)\/revoke$/,
    via: 'api',
    target: (_c, m) => ({ action: 'agent.revoke', targetKind: 'agent', target: decode(m[1]), detail: '' }),
  },
];

export interface AuditWritesDeps {
  readonly sink: AuditSink;
  readonly configs: ConfigCatalog;
}

export function auditWrites(deps: AuditWritesDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    (ctx.state as AuditHookState).auditSink = deps.sink;
    await next();
    if (ctx.status < 200 || ctx.status > 299 || (ctx.state as AuditHookState).audited === true) return;
    for (const route of routes) {
      if (route.method !== ctx.method) continue;
      const match = route.path.exec(ctx.path);
      if (match === null) continue;
      const target = await route.target(ctx, match, deps.configs);
      if (target !== undefined) await recordAudit(ctx, deps.sink, { ...target, via: route.via });
      return;
    }
  };
}

export type { AuditLog };
