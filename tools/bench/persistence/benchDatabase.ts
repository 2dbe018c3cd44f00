// PostgreSQL for the persistence benchmarks: SVC_BENCH_DATABASE_URL when set, else a throwaway
// embedded server from the spec harness, set up as production would be: fsync on, and 1 GB of
// shared_buffers (a quarter of RAM is PostgreSQL's usual advice; this machine has far more than 4 GB)
// rather than the 128 MB default, which holds neither a million agents' indexes nor their rows. Also builds the synthetic
// fleet: AgentState records with 1 KiB effective configs.

import type { ConnectionId, InstanceUid } from '../../../src/events/ids.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import { createPools, splitPool, type Pools } from '../../../src/persistence/database/pools.ts';
import { loadConfig } from '../../../src/io/config/loadConfig.ts';
import { writeConcurrency } from '../../../src/persistence/agents/agentWriter.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import {
  createTestDatabase,
  fromUrl,
  startPostgresServer,
  type PostgresServer,
  type TestDatabase,
} from '../../../spec/support/postgres.ts';

export interface BenchDatabase {
  readonly db: TestDatabase;
  readonly pools: Pools;
  readonly label: string;
  close(): Promise<void>;
}

const benchSharedBuffers = '1GB';

/** What openBenchDatabase opens, for the scenarios' conditions. */
export const benchDatabaseLabel = (): string =>
  process.env.SVC_BENCH_DATABASE_URL
    ? 'SVC_BENCH_DATABASE_URL'
    : `embedded PostgreSQL 18 (fsync on, shared_buffers ${benchSharedBuffers})`;

/** The flush's chunks at once with the service's default database settings. */
export function defaultWriteConcurrency(): number {
  const { database } = loadConfig();
  return writeConcurrency(splitPool(database.pool_max).write, database.write_concurrency);
}

export async function openBenchDatabase(poolMax = 10): Promise<BenchDatabase> {
  const url = process.env.SVC_BENCH_DATABASE_URL;
  let server: PostgresServer | undefined;
  const address = url
    ? fromUrl(url)
    : (server = await startPostgresServer({ fsync: true, sharedBuffers: benchSharedBuffers }));
  const db = await createTestDatabase(address);
  const settings = connectionSettings({ ...db.config, pool_max: poolMax });
  await applyServiceMigrations(settings);
  const pools = createPools(settings, { poolMax, readTimeoutMs: 30_000, logger: silentLogger() });
  return {
    db,
    pools,
    label: benchDatabaseLabel(),
    close: async () => {
      await pools.end();
      await db.drop();
      await server?.dispose();
    },
  };
}

const configBody = (n: number, version: number) =>
  `# agent ${n} v${version}\n${'receivers:\n  otlp:\n    protocols: { grpc: {}, http: {} }\n'.repeat(14)}`.slice(
    0,
    1024,
  );

export function syntheticAgent(n: number, lastSeen: number): AgentState {
  const uid = `01900000-0000-7000-8000-${n.toString(16).padStart(12, '0')}` as InstanceUid;
  return {
    uid,
    firstSeen: lastSeen - 60_000,
    lastSeen,
    sequenceNum: BigInt(n),
    capabilities: 0x3fn,
    description: {
      identifying: {
        'service.name': `svc-${n % 50}`,
        'service.instance.id': uid,
        'service.version': '1.2.3',
      },
      nonIdentifying: {
        'host.name': `host-${n}`,
        'os.type': 'linux',
        'deployment.environment': n % 2 ? 'prod' : 'staging',
      },
    },
    health: {
      healthy: true,
      startTimeNanos: 1_700_000_000_000_000_000n,
      lastError: '',
      status: 'ok',
      statusTimeNanos: 1_700_000_000_000_000_000n,
      components: {},
    },
    effectiveConfig: { 'collector.yaml': { body: configBody(n, lastSeen), contentType: 'text/yaml' } },
    packages: null,
    missingAttributes: [],
    reservedAttributeConflicts: [],
    complianceUpdatedAt: null,
    remoteConfigStatus: null,
    offeredConfigHash: null,
    rolledBackFrom: null,
    connectionSettingsStatus: null,
    offeredSettingsHash: null,
    failedSettingsHash: null,
    availableComponents: null,
    connected: true,
    session: {
      connectionId: 1 as ConnectionId,
      transport: 'ws',
      viaGateway: false,
      remoteAddr: '10.0.0.1:40000',
      tlsSubject: null,
    },
    connectionChangedAt: lastSeen - 60_000,
  };
}
