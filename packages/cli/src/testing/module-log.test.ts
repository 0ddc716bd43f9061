import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadedIn, requiredIn, resolvedIn, writeModuleLog, type ModuleLog } from './module-log.js';

let dir: string;
let log: ModuleLog;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-module-log-'));
  log = await writeModuleLog(dir);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A CI run once failed a lazy-load test with a child's exit code 1 and no message: the log was
// written to the child's stderr, a pipe that a busy test run had not read, and at the exit its
// `required` lines no longer fitted. Here the reader reads nothing until the child has exited.
it('logs every module of a child whose stderr nobody reads, and the child ends as it would', async () => {
  const file = join(dir, 'stalled.log');
  // A program that requires many modules: their `required` lines alone would fill a pipe (64 KiB).
  const program = `
    for (const name of ['node:path', 'node:url', 'node:util', 'node:zlib']) await import(name);
    const require = (await import('node:module')).createRequire(import.meta.url);
    for (let i = 0; i < 2_000; i++) require.cache['/made/up/module-' + i + '.js'] = {};
  `;
  const child = spawn(
    process.execPath,
    ['--import', log.hooks, '--import', log.required, '--input-type=module', '-e', program],
    { env: { ...process.env, ...log.env(file) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // Its stderr is read only once it has exited.
  child.stderr.pause();
  child.on('exit', () => child.stderr.resume());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  const lines = await log.read(file);
  expect(resolvedIn(lines)).toContain('node:zlib');
  expect(loadedIn(lines)).toContain('node:zlib');
  expect(requiredIn(lines)).toContain('/made/up/module-1999.js');
});
