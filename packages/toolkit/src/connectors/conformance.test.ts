import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const cli = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const packageDir = fileURLToPath(new URL('../..', import.meta.url));
// The CLI splits its --command on spaces, so the program is named relative to the package.
const clientCommand = [
  process.execPath,
  '--conditions=@toolplane/source',
  '--import',
  'tsx',
  'src/connectors/testing/conformance-client.ts',
].join(' ');

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

/** Runs one client scenario against the conformance program; resolves with the CLI's verdict. */
function runScenario(
  scenario: string,
): Promise<{ code: number | null; checks: Check[]; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [cli, 'client', '--command', clientCommand, '--scenario', scenario, '--verbose'],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // With --verbose the checks are the only thing on stdout, as JSON; the rest goes to stderr.
    let stdout = '';
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 45_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      try {
        resolve({ code, checks: JSON.parse(stdout) as Check[], log });
      } catch (error) {
        reject(
          new Error(`no checks on stdout (exit ${code}):\n${stdout}\n${log}`, { cause: error }),
        );
      }
    });
  });
}

const scenarios = [
  { scenario: 'initialize', required: ['mcp-client-initialization'] },
  { scenario: 'tools_call', required: ['tool-add-numbers'] },
  {
    scenario: 'elicitation-sep1034-client-defaults',
    required: ['string', 'integer', 'number', 'enum', 'boolean'].map(
      (type) => `client-elicitation-sep1034-${type}-default`,
    ),
  },
  {
    scenario: 'sse-retry',
    required: [
      'client-sse-graceful-reconnect',
      'client-sse-retry-timing',
      'client-sse-last-event-id',
    ],
  },
];

describe('the connector under the MCP conformance client scenarios', () => {
  it.each(scenarios)(
    'passes every check of $scenario',
    async ({ scenario, required }) => {
      const { code, checks, log } = await runScenario(scenario);
      const failed = checks.filter(
        (check) => check.status !== 'SUCCESS' && check.status !== 'INFO',
      );
      expect(failed, log).toEqual([]);
      const passed = checks.filter((check) => check.status === 'SUCCESS').map((check) => check.id);
      expect(passed).toEqual(expect.arrayContaining(required));
      expect(code, log).toBe(0);
    },
    60_000,
  );
});
