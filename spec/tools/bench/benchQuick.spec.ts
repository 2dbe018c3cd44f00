import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));

describe('npm run bench -- --quick', function () {
  // Eleven scenarios, each starting servers and PostgreSQL, on two cores that CI shares with itself.
  this.timeout(600_000);

  it('runs every scenario end to end against real servers and prints a report', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'bench', '--', '--quick'], {
      cwd: repo,
      maxBuffer: 1 << 24,
      timeout: 580_000,
    });
    for (const name of [
      'connected-fleet',
      'throughput',
      'connect-storm',
      'queries',
      'replay',
      'decoder',
      'persistence-load',
    ])
      expect(stdout).to.include(`\`${name}\``);
    expect(stdout).to.match(/Node v\d+/);
    expect(stdout).not.to.include('Failed:');
  });
});
