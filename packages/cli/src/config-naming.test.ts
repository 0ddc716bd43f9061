import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// `naming.separator` joins a server's namespace and its tools' names into what clients call. One
// outside a tool name's characters made no name legal as it was: the gateway hashed every
// namespaced tool's name (fx_add_efd51e28), and the config was taken without a word.
const dir = useTempDir('config-naming');

describe('the config file, naming.separator', () => {
  it('is refused, exit 2, when no exposed tool name can hold it', async () => {
    const file = join(dir(), 'slash.json');
    await writeFile(
      file,
      JSON.stringify({ store: 'memory', builtins: false, naming: { separator: '/' } }),
    );
    const ran = await runInProcess(['--config', file, 'tools', 'list'], { cwd: dir() });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('naming.separator');
    expect(ran.stderr).toContain('A-Z a-z 0-9 _ -');
    expect(ran.stdout).toBe('');
  });

  it('takes one of those characters', async () => {
    const file = join(dir(), 'dash.json');
    await writeFile(
      file,
      JSON.stringify({ store: 'memory', builtins: false, naming: { separator: '-' } }),
    );
    const ran = await runInProcess(['--config', file, 'tools', 'list'], { cwd: dir() });
    expect(ran.code).toBe(0);
  });
});
