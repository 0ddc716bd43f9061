import { createToolkit, defineTool } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { failureOf } from './testing/outcome.js';

// Answers are copied into the sandbox's WebAssembly memory before QuickJS reads them. One that
// cannot be given room there (a tool's huge text, the answers of thousands of searches at once)
// is the program's memory bound, reached: `resource_exhausted`, not a failed engine, and the
// sandbox is as it was for the next run.

const MEMORY = 16 << 20;

let code: CodeMode;
beforeAll(() => {
  const toolkit = createToolkit({
    tools: [
      defineTool({
        name: 'big_text',
        description: 'Returns `mib` MiB of text.',
        input: { type: 'object', properties: { mib: { type: 'number' } }, required: ['mib'] },
        run: (args) => 'x'.repeat(Math.round((args.mib as number) * (1 << 20))),
      }),
      defineTool({
        name: 'add',
        description: 'Adds two numbers.',
        input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
        run: (args) => ({ sum: (args.a as number) + (args.b as number) }),
      }),
    ],
  });
  // One worker, so that the run after a failure is on the same sandbox engine.
  code = createCodeMode(toolkit, {
    memoryLimitBytes: MEMORY,
    // Enough searches at once for their answers to pass the memory bound first.
    maxSearches: 100_000,
    maxConcurrentRuns: 1,
    timeoutMs: 60_000,
  });
});
afterAll(async () => {
  await code.close();
});

const failure = (program: string): Promise<CodeModeError> => failureOf(program, code);

async function stillWorks(): Promise<void> {
  const { value } = await code.run('return (await tools.builtin.add({ a: 2, b: 3 })).sum;');
  expect(value).toBe(5);
}

describe('answers larger than the sandbox has room for', () => {
  it('gives resource_exhausted for a tool answer past the whole memory, and the next run works', async () => {
    const error = await failure(
      'const text = await tools.builtin.big_text({ mib: 64 }); return 1;',
    );
    expect(error.code).toBe('resource_exhausted');
    expect(error.message).toContain('memoryLimitBytes');
    expect(error.calls?.total).toBe(1);
    await stillWorks();
  });

  it('gives resource_exhausted when the answers of many searches at once find no room', async () => {
    const error = await failure(
      'await Promise.all(Array.from({ length: 30000 }, () => search("add"))); return 1;',
    );
    expect(error.code).toBe('resource_exhausted');
    await stillWorks();
  });

  it('gives resource_exhausted for a program text past the whole memory, and the next run works', async () => {
    const error = await failure(`${' '.repeat(48 << 20)}return 1;`);
    expect(error.code).toBe('resource_exhausted');
    expect(error.message).toContain("the program's text");
    await stillWorks();
  });
});
