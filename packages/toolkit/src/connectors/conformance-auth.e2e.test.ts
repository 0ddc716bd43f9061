import { describe, expect, it } from 'vitest';
import { runConformanceClient } from './testing/conformance-run.js';

// The conformance `--suite auth` client scenarios against a toolkit whose connector is an OAuth
// client (see testing/conformance-client.ts), gated by conformance-auth.yaml: a scenario that
// fails and is not listed fails this test, and so does one listed that passes (a stale entry).

function runSuite(): Promise<{ code: number | null; log: string }> {
  // --verbose: a scenario that fails says which of its checks failed and why (a run under load
  // that fails once then says what to look at).
  const args = ['--suite', 'auth', '--timeout', '60000', '--verbose'];
  args.push('--expected-failures', 'src/connectors/conformance-auth.yaml');
  return runConformanceClient(args, 170_000).then(({ code, stdout, stderr }) => ({
    code,
    log: stdout + stderr,
  }));
}

describe('the connector under the MCP conformance auth suite', () => {
  it('fails only the scenarios conformance-auth.yaml lists', async () => {
    const { code, log } = await runSuite();
    const summary = log.slice(log.indexOf('=== SUITE SUMMARY ==='));
    expect(summary, log).toContain('auth/pre-registration');
    expect(summary).toMatch(/✓ auth\/metadata-default/);
    expect(code, log).toBe(0);
  }, 180_000);

  it('passes the client credentials scenarios, by secret and by private_key_jwt', async () => {
    const checks = {
      'auth/client-credentials-basic': 'client-credentials-basic-auth',
      'auth/client-credentials-jwt': 'client-credentials-jwt-verified',
    };
    for (const [scenario, check] of Object.entries(checks)) {
      const { code, stdout, stderr } = await runConformanceClient(
        ['--scenario', scenario, '--timeout', '30000'],
        60_000,
      );
      const log = stdout + stderr;
      expect(log).toMatch(new RegExp(`\\[${check}\\s*\\]\\s*\\S*SUCCESS`));
      expect(log).not.toMatch(/FAILURE/);
      expect(code, log).toBe(0);
    }
  }, 130_000);
});
