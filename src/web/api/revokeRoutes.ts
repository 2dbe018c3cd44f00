// POST /api/agents/{id}/revoke (issue 22; docs/security.md "Revocation"): marks the agent's binding
// and every certificate the agent CA issued it as revoked, and closes its live connection on whichever
// replica holds it (AgentCredentialRevoked). Its next connection is refused with 401. Checks, in
// order: the write rule (403), the id (404: neither the fleet nor the credential store knows it),
// then the store (503 when it cannot record the revocation: nothing is announced then). Revoking a
// revoked agent changes nothing and answers 200 with the first revocation.

import type { Context } from 'koa';
import { parseInstanceUid, type InstanceUid } from '../../events/ids.ts';
import type { AgentRevoker } from '../../projections/identity/agentRevoker.ts';
import { authorizeWrite } from '../auth.ts';
import { observed, type ApiDeps, type ApiRouter } from './apiDeps.ts';
import { sendJson } from './jsonResponse.ts';

const unavailable = 'credential store unavailable: the revocation was not recorded';

async function isKnown(
  ctx: Context,
  deps: ApiDeps,
  revoker: AgentRevoker,
  uid: InstanceUid,
): Promise<boolean> {
  try {
    if ((await deps.reader.getAgent(uid)) !== undefined) return true;
  } catch (error) {
    // The fleet store is down; the credential store below answers for the id (or fails: 503).
    deps.logger.warn({ err: error, uid }, 'agent store read failed; asking the credential store');
  }
  try {
    return await revoker.isBound(uid);
  } catch (error) {
    deps.logger.error({ err: error, uid }, 'credential store read failed');
    return ctx.throw(503, unavailable, { expose: true });
  }
}

export function revokeRoutes(router: ApiRouter, deps: ApiDeps): void {
  router.post('/api/agents/:id/revoke', observed('/api/agents/{id}/revoke', deps), async (ctx) => {
    const auth = authorizeWrite(ctx, deps.allowUnauthenticatedWrites);
    if (!auth.ok) return ctx.throw(auth.status, auth.error);
    const id = ctx.params.id ?? '';
    const uid = parseInstanceUid(id);
    if (uid === undefined) return ctx.throw(404, `agent ${JSON.stringify(id)} not found`);
    const revoker = deps.revoker;
    if (revoker === undefined) return ctx.throw(503, unavailable, { expose: true });
    if (!(await isKnown(ctx, deps, revoker, uid)))
      return ctx.throw(404, `agent ${JSON.stringify(id)} not found`);
    let outcome;
    try {
      outcome = await revoker.revoke(uid, auth.author);
    } catch (error) {
      deps.logger.error({ err: error, uid }, 'agent revocation failed');
      return ctx.throw(503, unavailable, { expose: true });
    }
    deps.logger.warn(
      { actor: auth.author, instance_uid: uid, certificates: outcome.certificates, changed: outcome.changed },
      'agent revoked',
    );
    sendJson(ctx, 200, {
      instance_uid: uid,
      revoked_at: new Date(outcome.revokedAt).toISOString(),
      revoked_by: outcome.revokedBy,
      certificates_revoked: outcome.certificates,
      already_revoked: !outcome.changed,
    });
  });
}
