// A plain-HTTP reply is gzipped when the agent accepts gzip and the reply is at least gzipMinBytes
// long (a remote config), and goes as it is when it is shorter (a status reply) or gzip is not
// accepted. Go's HTTP client, under opamp-go's agents, accepts gzip on every request.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { dump } from 'js-yaml';
import type { App } from '../../../src/app.ts';
import { decodeServerToAgent } from '../../../src/io/opamp/codec.ts';
import { gzipMinBytes } from '../../../src/io/opamp/httpTransport.ts';
import { agentMessage, description, newUid } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';

/** A config body well over gzipMinBytes, every line different. */
const configBody = dump({
  receivers: { otlp: { protocols: { grpc: {} } } },
  processors: Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [
      `attributes/${i}`,
      { actions: [{ key: `k${i}`, value: `v${i}` }] },
    ]),
  ),
  exporters: { debug: {} },
  service: { pipelines: { traces: { receivers: ['otlp'], exporters: ['debug'] } } },
});

function rawPost(base: string, body: Uint8Array, headers: Record<string, string>) {
  return new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
    const req = request(
      `${base}/v1/opamp`,
      { method: 'POST', headers: { 'Content-Type': 'application/x-protobuf', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A first report asking for remote config (AcceptsRemoteConfig), from a `service.name`. */
const first = (uid: string, service: string) =>
  agentMessage(uid, {
    capabilities: 0x1 | 0x2 | 0x1000,
    agentDescription: description({ 'service.name': service }),
    remoteConfigStatus: { status: 0 },
  });

describe('gzip of plain-HTTP replies', () => {
  let dir: string;
  let app: App;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-configs-'));
    writeFileSync(join(dir, 'large.yaml'), dump({ selector: 'service.name=gzipped', body: configBody }));
    app = await startApp({ config: { remote_config: { dir } } });
  });
  after(async () => {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gzips a reply carrying a remote config when the agent accepts gzip', async () => {
    expect(configBody.length).to.be.above(gzipMinBytes);
    const res = await rawPost(app.urls.opamp, first(newUid(), 'gzipped'), { 'Accept-Encoding': 'gzip' });
    expect(res.encoding).to.equal('gzip');
    const message = decodeServerToAgent(gunzipSync(res.body));
    const files = message.remoteConfig?.config?.configMap ?? {};
    expect(Buffer.from(Object.values(files)[0]!.body).toString()).to.equal(configBody);
  });

  it('sends the same reply as it is when the agent does not accept gzip', async () => {
    const res = await rawPost(app.urls.opamp, first(newUid(), 'gzipped'), {});
    expect(res.encoding).to.equal(undefined);
    expect(decodeServerToAgent(res.body).remoteConfig?.config).to.not.equal(undefined);
  });

  it('sends a status reply shorter than gzipMinBytes as it is though the agent accepts gzip', async () => {
    const res = await rawPost(app.urls.opamp, first(newUid(), 'plain'), { 'Accept-Encoding': 'gzip' });
    expect(res.encoding).to.equal(undefined);
    expect(res.body.length).to.be.below(gzipMinBytes);
    expect(decodeServerToAgent(res.body).remoteConfig).to.equal(undefined);
  });
});
