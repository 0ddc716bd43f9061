import { readFile } from 'node:fs/promises';
import { createToolkit } from '@toolplane/toolkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCodeMode } from './code-mode.js';

// QuickJS's module is read and compiled by the main thread (quickjs-wasm.ts). When that fails, a
// run gets a typed error that says why, and the failure is not kept: the next run compiles again.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, readFile: vi.fn(actual.readFile) };
});

afterEach(() => {
  vi.mocked(readFile).mockRestore();
});

describe('a QuickJS module that does not compile', () => {
  it('fails the run that needed it with internal, and the next run compiles it again', async () => {
    const code = createCodeMode(createToolkit(), { maxConcurrentRuns: 1 });
    try {
      vi.mocked(readFile).mockResolvedValueOnce(Buffer.from('not WebAssembly'));
      const failed = await code.run('return 1;').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toMatchObject({
        code: 'internal',
        message: expect.stringMatching(
          /^the sandbox worker failed to start: QuickJS did not compile: .*magic/,
        ) as unknown,
      });
      expect((await code.run('return 6 * 7;')).value).toBe(42);
    } finally {
      await code.close();
    }
  });
});
