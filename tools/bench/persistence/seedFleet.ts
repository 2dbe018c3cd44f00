// Stores a large synthetic fleet fast, for the fleet-size benchmarks: agent and session rows built by
// generate_series in PostgreSQL itself, with the attributes syntheticAgent (benchDatabase.ts) gives
// agent n (service.name svc-(n % 50), host.name host-n, deployment.environment prod for odd n), so
// the service's own writer (sibling.ts) can later save changed copies of the same agents. No
// effective configs: lists never read them.

import type { Pools } from '../../../src/persistence/database/pools.ts';

const uid = `'01900000-0000-7000-8000-' || lpad(to_hex(n), 12, '0')`;

/** Stores agents `from` (inclusive) to `to` (exclusive), in chunks of `chunk` agents per statement. */
export async function seedFleet(pools: Pools, from: number, to: number, chunk = 100_000): Promise<void> {
  for (let start = from; start < to; start += chunk) {
    const end = Math.min(to, start + chunk);
    await pools.write.query(
      `INSERT INTO agents (instance_uid, first_seen, last_seen, healthy, health_status, health_reported,
         capabilities, identifying, non_identifying, updated_at)
       SELECT ${uid}, now() - interval '1 minute', now(), true, 'ok', true, 63,
         jsonb_build_object('service.name', 'svc-' || (n % 50), 'service.instance.id', ${uid},
           'service.version', '1.2.3'),
         jsonb_build_object('host.name', 'host-' || n, 'os.type', 'linux',
           'deployment.environment', CASE WHEN n % 2 = 1 THEN 'prod' ELSE 'staging' END),
         now()
       FROM generate_series($1::bigint, $2::bigint - 1) n`,
      [start, end],
    );
    await pools.write.query(
      `INSERT INTO agent_session (instance_uid, connected, remote_addr, transport, description_reported,
         updated_at, alive_at, connection_changed_at)
       SELECT ${uid}, true, '10.0.0.1:40000', 'ws', true, now(), now(), now()
       FROM generate_series($1::bigint, $2::bigint - 1) n`,
      [start, end],
    );
  }
  await pools.write.query('VACUUM ANALYZE agents, agent_session');
}
