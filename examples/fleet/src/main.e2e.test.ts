import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { entryArgs } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';
import { missing } from './fleet.js';

const run = promisify(execFile);
const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const reason = missing();
const inCi = process.env.CI === 'true';
if (reason !== undefined && !inCi) console.warn(`fleet example skipped: ${reason}`);

describe.runIf(reason !== undefined && inCi)('fleet example in CI', () => {
  it('finds haproxy and PostgreSQL', () => {
    expect.fail(reason);
  });
});

describe.skipIf(reason !== undefined)('fleet example', () => {
  it('starts three instances, HAProxy and PostgreSQL, and passes its own checks', async () => {
    const { stdout } = await run(process.execPath, entryArgs(join(exampleDir, 'src/main.ts')), {
      cwd: exampleDir,
      timeout: 90_000,
    });
    expect(stdout).toMatch(/2026 client, 90 calls answered by \{"gw1":\d+,"gw2":\d+,"gw3":\d+\}/);
    expect(stdout).toMatch(/2025 session, every request answered by \{"gw\d":\d+\}/);
    expect(stdout).toContain('fleet: all checks passed');
  }, 120_000);
});
