// Who did what (docs/security.md "Audit log"): every write that changes what agents run, or who may
// connect, is appended with its actor. Append-only: the service offers no way to change or remove an
// entry (PostgreSQL with persistence on, this process's memory without).

export type AuditAction =
  | 'config.create'
  | 'config.update'
  | 'config.draft'
  | 'config.delete'
  | 'config.restore'
  | 'rollout.create'
  | 'job.create'
  | 'job.arm'
  | 'job.pause'
  | 'job.resume'
  | 'job.promote'
  | 'job.rollback'
  | 'job.cancel'
  | 'agent.revoke';

export const auditActions: readonly AuditAction[] = [
  'config.create',
  'config.update',
  'config.draft',
  'config.delete',
  'config.restore',
  'rollout.create',
  'job.create',
  'job.arm',
  'job.pause',
  'job.resume',
  'job.promote',
  'job.rollback',
  'job.cancel',
  'agent.revoke',
];

/** Who did it: the kind of credential and what names the person or client. */
export interface AuditActor {
  readonly kind: 'session' | 'token' | 'certificate' | 'anonymous';
  /** The OIDC `sub`, the SPIFFE id, the token's name, or `anonymous`. */
  readonly id: string;
  /** The email or name of a signed-in person; the id otherwise. */
  readonly name: string;
}

export interface AuditEntryInput {
  readonly at: number;
  readonly actor: AuditActor;
  readonly action: AuditAction;
  /** `config` or `job` or `agent`. */
  readonly targetKind: 'config' | 'job' | 'agent';
  /** The config's name, the job's id, the agent's instance id. */
  readonly target: string;
  /** `api` or `ui`. */
  readonly via: 'api' | 'ui';
  /** What the write said beyond its target (a revision, a reason); short. */
  readonly detail: string;
}

export interface AuditEntry extends AuditEntryInput {
  /** Increasing in the order of appending. */
  readonly id: number;
}

export interface AuditFilter {
  /** Matches the actor's id or name, case-insensitive substring. */
  readonly who?: string;
  readonly action?: AuditAction;
  /** Exact config name, job id or agent id. */
  readonly target?: string;
  /** Unix ms, inclusive / exclusive. */
  readonly since?: number;
  readonly until?: number;
  /** Newest first; at most this many (default 100). */
  readonly limit?: number;
  /** Entries with an id below this (the next page). */
  readonly before?: number;
}

export interface AuditLog {
  append(entry: AuditEntryInput): Promise<AuditEntry>;
  list(filter: AuditFilter): Promise<readonly AuditEntry[]>;
}

/** Whether an entry passes the filter (the memory log; the SQL says the same). */
export function matchesAudit(entry: AuditEntry, filter: AuditFilter): boolean {
  const who = filter.who?.toLowerCase();
  if (who !== undefined && who !== '') {
    const names = `${entry.actor.id}\n${entry.actor.name}`.toLowerCase();
    if (!names.includes(who)) return false;
  }
  if (filter.action !== undefined && entry.action !== filter.action) return false;
  if (filter.target !== undefined && filter.target !== '' && entry.target !== filter.target) return false;
  if (filter.since !== undefined && entry.at < filter.since) return false;
  if (filter.until !== undefined && entry.at >= filter.until) return false;
  if (filter.before !== undefined && entry.id >= filter.before) return false;
  return true;
}

export function createMemoryAuditLog(): AuditLog {
  const entries: AuditEntry[] = [];
  return {
    append(input) {
      const entry = Object.freeze({ ...input, id: entries.length + 1 });
      entries.push(entry);
      return Promise.resolve(entry);
    },
    list(filter) {
      const limit = filter.limit ?? 100;
      const out: AuditEntry[] = [];
      for (let i = entries.length - 1; i >= 0 && out.length < limit; i--)
        if (matchesAudit(entries[i]!, filter)) out.push(entries[i]!);
      return Promise.resolve(out);
    },
  };
}
