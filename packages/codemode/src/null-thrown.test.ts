import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit } from './testing/local-toolkit.js';
import { failureOf } from './testing/outcome.js';

// QuickJS throws `null` when it has no memory left even for its "out of memory" error: a
// program that chains promises without end ended as `execution` with the message "null".

let code: CodeMode;
beforeAll(() => {
  // A wall-clock bound no loaded machine reaches: the run must end on the memory bound alone.
  code = createCodeMode(localToolkit().toolkit, {
    memoryLimitBytes: 16 << 20,
    maxConcurrentRuns: 1,
    timeoutMs: 120_000,
  });
});
afterAll(async () => {
  await code.close();
});

const failure = (program: string): Promise<CodeModeError> => failureOf(program, code);

const OUT_OF_MEMORY =
  'out of memory: the program needs more than its 16 MiB of memory (memoryLimitBytes); keep less at once';

describe('a program that runs out of memory where QuickJS throws null', () => {
  it('ends an endless async chain as resource_exhausted, naming memoryLimitBytes', async () => {
    for (const program of [
      'const f = async () => { await null; return f(); }; return await f();',
      'let p = Promise.resolve(); for (;;) p = p.then(() => 1);',
    ]) {
      const error = await failure(program);
      expect({ program, code: error.code, message: error.message }).toEqual({
        program,
        code: 'resource_exhausted',
        message: OUT_OF_MEMORY,
      });
    }
  });

  it('still ends a program that throws null itself as an execution error, and the next run works', async () => {
    const error = await failure('await null; throw null;');
    expect(error.code).toBe('execution');
    expect(error.message).toBe('the program threw null');
    const { value } = await code.run('return (await tools.builtin.add({ a: 2, b: 3 })).sum;');
    expect(value).toBe(5);
  });
});
