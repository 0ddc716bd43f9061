import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { entryArgs } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const exampleDir = fileURLToPath(new URL('..', import.meta.url));

describe('anthropic-agent example', () => {
  it('runs its tool loop offline against the mock model and passes its own checks', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.ANTHROPIC_API_KEY;
    const { stdout } = await run(process.execPath, entryArgs(join(exampleDir, 'src/main.ts')), {
      cwd: exampleDir,
      env,
    });
    expect(stdout).toContain('model: scripted');
    expect(stdout).toContain('step 1: 2 tool results');
    expect(stdout).toContain('anthropic-agent: all checks passed');
  });
});
