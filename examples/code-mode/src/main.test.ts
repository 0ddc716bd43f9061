import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { entryArgs } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const exampleDir = fileURLToPath(new URL('..', import.meta.url));

describe('code-mode example', () => {
  it('does the task with one run_code through the scripted model and passes its own checks', async () => {
    const { stdout } = await run(process.execPath, entryArgs(join(exampleDir, 'src/main.ts')), {
      cwd: exampleDir,
    });
    expect(stdout).toContain('model → run_code: ok');
    expect(stdout).toContain('code-mode: all checks passed');
  });
});
