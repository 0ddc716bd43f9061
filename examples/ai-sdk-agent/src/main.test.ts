import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { entryArgs } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const exampleDir = fileURLToPath(new URL('..', import.meta.url));

describe('ai-sdk-agent example', () => {
  it('runs its prompt files as agents against the scripted model and passes its own checks', async () => {
    // Offline whatever the environment holds: the test never reaches a real API.
    const env = { ...process.env, OPENAI_API_KEY: '' };
    const { stdout } = await run(process.execPath, entryArgs(join(exampleDir, 'src/main.ts')), {
      cwd: exampleDir,
      env,
    });
    expect(stdout).toContain('model: scripted');
    expect(stdout).toContain('add-numbers: The tool says: The sum of 2 and 3 is 5.');
    expect(stdout).toContain('ai-sdk-agent: all checks passed');
  });
});
