import { describe, expect, it } from 'vitest';
import { runConformanceClient } from './testing/conformance-run.js';

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

/** Runs one client scenario against the conformance program; resolves with the CLI's verdict. */
async function runScenario(
  scenario: string,
): Promise<{ code: number | null; checks: Check[]; log: string }> {
  // With --verbose the checks are the only thing on stdout, as JSON; the rest goes to stderr.
  const run = await runConformanceClient(['--scenario', scenario, '--verbose'], 45_000);
  try {
    return { code: run.code, checks: JSON.parse(run.stdout) as Check[], log: run.stderr };
  } catch (error) {
    throw new Error(`no checks on stdout (exit ${run.code}):\n${run.stdout}\n${run.stderr}`, {
      cause: error,
    });
  }
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
