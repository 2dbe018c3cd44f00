// The hook a write route calls to record its own audit entry (for a write the route table of
// auditWrites.ts cannot read, or a new action such as a job's promote): `auditWrite(ctx, entry)`.
// The actor is the request's identity; the entry is appended and logged once, and the middleware
// then records nothing more for this request. A failure to append is logged, never thrown: the
// write has happened already.

import type { Context } from 'koa';
import type { AuditEntryInput, AuditLog } from '../../projections/access/auditLog.ts';
import { auditActorOf } from './auditActor.ts';

export interface AuditSink {
  readonly log: AuditLog;
  readonly now: () => number;
  /** The structured log line of each entry, and append failures. */
  readonly logLine: (entry: AuditEntryInput & { readonly id?: number }) => void;
  readonly onError: (error: unknown, entry: AuditEntryInput) => void;
}

export interface AuditHookState {
  auditSink?: AuditSink;
  audited?: boolean;
}

export type AuditWrite = Pick<AuditEntryInput, 'action' | 'targetKind' | 'target' | 'detail' | 'via'>;

export async function recordAudit(ctx: Context, sink: AuditSink, write: AuditWrite): Promise<void> {
  const state = ctx.state as AuditHookState;
  state.audited = true;
  const entry: AuditEntryInput = { ...write, at: sink.now(), actor: auditActorOf(ctx) };
  try {
    const appended = await sink.log.append(entry);
    sink.logLine(appended);
  } catch (error) {
    sink.onError(error, entry);
  }
}

/** For a route that records its own write (e.g. `job.promote`); a no-op where no audit log is wired. */
export async function auditWrite(ctx: Context, write: AuditWrite): Promise<void> {
  const sink = (ctx.state as AuditHookState).auditSink;
  if (sink !== undefined) await recordAudit(ctx, sink, write);
}
