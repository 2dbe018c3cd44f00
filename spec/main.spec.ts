import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'main-spec-'));

function run(
  args: string[],
  env: Record<string, string> = {},
  onLine?: (line: string, kill: () => void) => void,
) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['src/main.ts', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onLine?.(stderr, () => child.kill('SIGTERM'));
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('the service process', () => {
  it('refuses to start on invalid configuration, naming every problem, before any listener opens', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'fleet:\n  heartbeat_interval: often\nlog:\n  level: chatty\nbogus: 1\n');
    const { code, stderr } = await run(['-config', file]);
    expect(code).to.equal(2);
    expect(stderr).to.include('fleet.heartbeat_interval').and.include('log.level').and.include('bogus');
    expect(stderr).to.not.include('listening');
  });

  it('loads -config FILE, serves, and exits 0 on SIGTERM after draining', async () => {
    const file = join(dir, 'good.yaml');
    writeFileSync(
      file,
      'listeners: {opamp: "127.0.0.1:0", ui: "127.0.0.1:0", telemetry: "127.0.0.1:0"}\nshutdown: {drain_delay: 100ms}\nlog: {format: json}\n',
    );
    let sent = false;
    const { code, stderr } = await run(['-config', file], {}, (text, kill) => {
      if (!sent && text.includes('"msg":"listening"')) {
        sent = true;
        kill();
      }
    });
    expect(code).to.equal(0);
    expect(stderr).to.include('"msg":"stopped"');
  });

  it('takes configuration from SVC_ variables', async () => {
    const { code, stderr } = await run([], { SVC_LOG_LEVEL: 'verbose' });
    expect(code).to.equal(2);
    expect(stderr).to.include('log.level');
  });
});
