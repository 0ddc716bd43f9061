import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { childPids, isRunning } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';
import { runCli, useTempDir, withoutStartProgress } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';
import { stdioServerScript } from './testing/stdio-script.js';

const tempDir = useTempDir('prestart');

/** Polls until `done` holds: a process's end has no event this test can wait for. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** A config file with one stdio server running `script` (`node -e`), its extra words `args`. */
async function configWith(name: string, script: string, args: readonly string[] = [], extra = {}) {
  const file = join(tempDir(), `${name}.json`);
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: { [name]: { command: process.execPath, args: ['-e', script, ...args] } },
      store: 'memory',
      builtins: false,
      ...extra,
    }),
  );
  return file;
}

describe('the early start of the servers', { timeout: 60_000 }, () => {
  it('lists the tools of a server it started before loading the toolkit', async () => {
    const file = await configWith(
      'early',
      stdioServerScript({ name: 'early', tools: ['greet'], onCall: '' }),
    );
    const ran = await runInProcess(['--config', file, 'tools', 'list'], { cwd: tempDir() });
    expect(withoutStartProgress(ran.stderr)).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('early:greet');
  });

  it('ends a server started for a config that is refused later', async () => {
    const token = `refused-later-${String(Date.now())}`;
    const file = await configWith(
      'refused',
      stdioServerScript({ name: 'refused', tools: ['greet'], onCall: '' }),
      [token],
      // Unknown: the full load refuses the file after the server was started.
      { tokn: 'x' },
    );
    const ran = await runInProcess(['--config', file, 'tools', 'list'], { cwd: tempDir() });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('unknown key "tokn"');
    await until(() => childPids(token).length === 0);
  });

  it('does not leave a server that ignores the end of its input running after the CLI', async () => {
    const pidFile = join(tempDir(), 'deaf.pid');
    const file = await configWith(
      'deaf',
      stdioServerScript({
        name: 'deaf',
        tools: ['greet'],
        onCall: '',
        // Its stdin closing ends nothing: the timer keeps it alive until a signal comes.
        prelude: `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
setInterval(() => {}, 60_000);`,
      }),
    );
    // The process is the subject: the real bin, which exits once its answer is out.
    const ran = await runCli(['--config', file, 'tools', 'list'], { cwd: tempDir() });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('deaf:greet');
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    // Ended by the reaper the CLI left behind (SIGTERM a second after the CLI closed its stdin).
    await until(() => !isRunning(pid));
  });
});
