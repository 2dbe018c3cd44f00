// Who a write is attributed to in the audit log: the identity the authentication middleware found.

import type { Context } from 'koa';
import type { AuditActor } from '../../projections/access/auditLog.ts';
import type { AuthState } from '../auth.ts';

export function auditActorOf(ctx: Context): AuditActor {
  const identity = (ctx.state as AuthState).identity;
  if (identity === undefined || identity.kind === 'anonymous')
    return { kind: 'anonymous', id: 'anonymous', name: 'anonymous' };
  return { kind: identity.kind, id: identity.subject ?? identity.name, name: identity.name };
}
