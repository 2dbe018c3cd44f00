// Revocations made on sibling replicas, heard through PostgreSQL NOTIFY (svc_agent_revoked) and
// published on this replica's bus as AgentCredentialRevoked, so the OpAMP listener closes the agent's
// connection wherever it is held. A notification is a hint that can be lost while the listening
// connection is down: after every reconnection the ids revoked since shortly before the previous
// connection are read and announced again (closing a connection that is not there does nothing).

import type pg from 'pg';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import { parseInstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { Notifications } from '../database/notifications.ts';
import { revocationsChannel, revokedSinceSql } from './credentialSql.ts';

/** Clocks of replicas differ; a catch-up reads this much further back. */
export const catchUpMarginMs = 60_000;

export interface RevocationListenerDeps {
  readonly notifications: Notifications;
  readonly pool: pg.Pool;
  readonly publish: (event: FleetEvent) => void;
  readonly now: () => number;
  readonly replica: string;
  readonly logger: Logger;
}

function parseNotice(payload: string): { uid: string; by: string; replica: string } | undefined {
  try {
    const value = JSON.parse(payload) as Partial<Record<'uid' | 'by' | 'replica', unknown>>;
    const { uid, by, replica } = value;
    return typeof uid === 'string' && typeof by === 'string' && typeof replica === 'string'
      ? { uid, by, replica }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Subscribes at once; returns the unsubscribe. Handlers never throw (Notifications' contract). */
export function listenForRevocations(deps: RevocationListenerDeps): () => void {
  const { logger } = deps;
  let connectedAt: number | undefined;
  const announce = (uid: string, revokedBy: string) => {
    const id = parseInstanceUid(uid);
    if (id === undefined) return logger.warn({ uid }, 'revocation notice for a malformed id ignored');
    deps.publish({ type: 'AgentCredentialRevoked', at: deps.now(), data: { uid: id, revokedBy } });
  };
  const offNotice = deps.notifications.on(revocationsChannel, (payload) => {
    const notice = parseNotice(payload);
    if (notice === undefined) return logger.warn({ payload }, 'malformed revocation notice ignored');
    if (notice.replica !== deps.replica) announce(notice.uid, notice.by);
  });
  const catchUp = async (since: number) => {
    const { rows } = await deps.pool.query<[string, string]>({ ...revokedSinceSql(since), rowMode: 'array' });
    for (const [uid, by] of rows) announce(uid, by);
  };
  const offConnected = deps.notifications.onConnected(() => {
    const previous = connectedAt;
    connectedAt = deps.now();
    if (previous === undefined) return; // at startup no connection is open yet
    catchUp(previous - catchUpMarginMs).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not read revocations missed while not listening'),
    );
  });
  return () => {
    offNotice();
    offConnected();
  };
}
