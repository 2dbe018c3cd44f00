import { expect } from 'chai';
import { agentColumns } from '../../src/persistence/agents/agentColumns.ts';
import { arrayLiteral } from '../../src/persistence/database/arrayLiteral.ts';
import {
  connectionSettings,
  connectionUrl,
  tlsOptions,
} from '../../src/persistence/database/connectionSettings.ts';
import { splitPool } from '../../src/persistence/database/pools.ts';
import { upsertAgentsSql } from '../../src/persistence/agents/agentWriteSql.ts';
import { agent } from './agents/storeFixtures.ts';

const database = {
  host: 'db.example',
  port: 5433,
  user: 'svc',
  password: 'p@ss word',
  dbname: 'fleet',
  sslmode: 'disable',
  pool_max: 10,
} as const;

describe('persistence SQL and connection settings', () => {
  it('keeps the batch statement text the same whatever the batch size (UNNEST arrays)', () => {
    const one = upsertAgentsSql(agentColumns([agent(1)]));
    const many = upsertAgentsSql(agentColumns([1, 2, 3, 4].map((n) => agent(n))));
    expect(many.text).to.equal(one.text);
    expect(many.values[0]).to.match(/^\{("[^"]+",){3}"[^"]+"\}$/);
  });

  it('encodes array parameters as PostgreSQL array literals, escaping quotes and backslashes', () => {
    expect(arrayLiteral(['a', 'b"c', 'd\\e', null, '', 'NULL', '{x,y}'])).to.equal(
      '{"a","b\\"c","d\\\\e",NULL,"","NULL","{x,y}"}',
    );
    expect(arrayLiteral([1.5, 0, null])).to.equal('{1.5,0,NULL}');
    expect(arrayLiteral([true, false])).to.equal('{t,f}');
    expect(arrayLiteral([])).to.equal('{}');
  });

  it('sends capabilities as the unsigned 64-bit decimal', () => {
    expect(agentColumns([agent(1, { capabilities: (1n << 64n) - 1n })]).capabilities).to.deep.equal([
      '18446744073709551615',
    ]);
  });

  it('maps database.sslmode as libpq means it', () => {
    expect(tlsOptions('disable')).to.equal(false);
    expect(tlsOptions('require')).to.deep.equal({ rejectUnauthorized: false });
    const verifyCa = tlsOptions('verify-ca');
    expect(verifyCa && verifyCa.rejectUnauthorized).to.equal(true);
    expect(verifyCa && verifyCa.checkServerIdentity?.('other.host', {} as never)).to.equal(undefined);
    expect(tlsOptions('verify-full')).to.deep.equal({ rejectUnauthorized: true });
  });

  it('builds the connection settings and URL from the database keys', () => {
    expect(connectionSettings(database)).to.deep.equal({
      host: 'db.example',
      port: 5433,
      user: 'svc',
      password: 'p@ss word',
      database: 'fleet',
      ssl: false,
    });
    const url = new URL(connectionUrl({ ...database, sslmode: 'verify-full' }));
    expect([url.hostname, url.port, decodeURIComponent(url.password), url.pathname]).to.deep.equal([
      'db.example',
      '5433',
      'p@ss word',
      '/fleet',
    ]);
    expect(url.searchParams.get('sslmode')).to.equal('verify-full');
    expect(url.searchParams.get('uselibpqcompat')).to.equal('true');
  });

  it('gives readers a share of the pool writers cannot take', () => {
    expect(splitPool(10)).to.deep.equal({ write: 5, read: 5 });
    expect(splitPool(2)).to.deep.equal({ write: 1, read: 1 });
    expect(splitPool(3)).to.deep.equal({ write: 1, read: 2 });
  });
});
