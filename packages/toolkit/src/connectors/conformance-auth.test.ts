import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The conformance `--suite auth` client scenarios against a toolkit whose connector is an OAuth
// client (see testing/conformance-client.ts), gated by conformance-auth.yaml: a scenario that
// fails and is not listed fails this test, and so does one listed that passes (a stale entry).

const require = createRequire(import.meta.url);
const cli = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const clientCommand = [
  process.execPath,
  '--conditions=@toolplane/source',
  '--import',
  'tsx',
  'src/connectors/testing/conformance-client.ts',
].join(' ');

function runSuite(): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        cli,
        'client',
        '--command',
        clientCommand,
        '--suite',
        'auth',
        '--timeout',
        '60000',
        '--expected-failures',
        'src/connectors/conformance-auth.yaml',
      ],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 170_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

describe('the connector under the MCP conformance auth suite', () => {
  it('fails only the scenarios conformance-auth.yaml lists', async () => {
    const { code, log } = await runSuite();
    const summary = log.slice(log.indexOf('=== SUITE SUMMARY ==='));
    expect(summary, log).toContain('auth/pre-registration');
    expect(summary).toMatch(/✓ auth\/metadata-default/);
    expect(code, summary).toBe(0);
  }, 180_000);
});
