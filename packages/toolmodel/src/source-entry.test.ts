import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUNDLES_ENV, repoRoot, startWorker, workerModule } from './source-entry.js';

const sandboxPool = pathToFileURL(join(repoRoot, 'packages/codemode/src/pool.ts')).href;

describe('workerModule', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('starts a built package its JavaScript beside it, with no loader', () => {
    const built = pathToFileURL(join(repoRoot, 'packages/codemode/dist/pool.js')).href;
    expect(workerModule(built, './worker')).toEqual({
      filename: join(repoRoot, 'packages/codemode/dist/worker.js'),
      execArgv: [],
      typescript: false,
    });
  });

  it('starts, from sources in a test run, the bundle the run built rather than compiling TypeScript', () => {
    const { filename, execArgv, typescript } = workerModule(sandboxPool, './worker');
    expect(typescript).toBe(false);
    expect(filename).toMatch(/packages\/codemode\/src\/worker\.mjs$/);
    expect(existsSync(filename)).toBe(true);
    expect(execArgv).toEqual([]);
  });

  it('starts, from sources with no bundles, the TypeScript under tsx with the source condition', () => {
    vi.stubEnv(BUNDLES_ENV, undefined);
    const { filename, execArgv } = workerModule(sandboxPool, './worker');
    expect(filename).toBe(join(repoRoot, 'packages/codemode/src/worker.ts'));
    expect(execArgv.slice(0, 2)).toEqual(['--conditions=@toolplane/source', '--import']);
    expect(execArgv[2]).toMatch(/^file:.*tsx/);
  });

  it('starts a TypeScript worker of its own from sources with no bundles', async () => {
    vi.stubEnv(BUNDLES_ENV, undefined);
    const here = pathToFileURL(join(repoRoot, 'packages/toolmodel/src/source-entry.ts')).href;
    const module = workerModule(here, './testdata/answer-worker');
    expect(module.typescript).toBe(true);
    const worker = startWorker(module, { workerData: { question: 'the answer' } });
    const [answer] = (await once(worker, 'message')) as [string];
    expect(answer).toBe('the answer: 42');
    await worker.terminate();
  });

  it('refuses, in a test run, a worker module the run did not bundle, so a missed one is found rather than slow', () => {
    expect(() => workerModule(sandboxPool, './nowhere')).toThrow(
      /packages\/codemode\/src\/nowhere\.ts is started from source but not bundled/,
    );
  });
});
