import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit } from './testing/local-toolkit.js';
import { failureOf } from './testing/outcome.js';

// search() inside a program ran the catalogue search on the main thread as often as the program
// asked, bounded by nothing but the run's time: a loop of searches held a shared gateway's CPU
// for the whole timeoutMs. It has its own bound, maxSearches, which ends the run as
// resource_exhausted as the tool-call bound does.

let code: CodeMode;
beforeAll(() => {
  // A wall-clock bound no loaded machine reaches: the run must end on the search bound alone.
  code = createCodeMode(localToolkit().toolkit, {
    maxSearches: 5,
    maxConcurrentRuns: 1,
    timeoutMs: 120_000,
  });
});
afterAll(async () => {
  await code.close();
});

const failure = (program: string): Promise<CodeModeError> => failureOf(program, code);

describe('maxSearches', () => {
  it('ends a program that searches in a loop as resource_exhausted, naming the bound', async () => {
    const error = await failure("for (;;) await search('add');");
    expect(error.code).toBe('resource_exhausted');
    expect(error.message).toBe(
      'the program made more than 5 searches (maxSearches); search once and reuse what it found',
    );
    expect(error.calls?.searches).toBeLessThanOrEqual(5);
  });

  it('ends searches made without awaiting them, too', async () => {
    const error = await failure("for (let i = 0; i < 1000; i++) search('add'); return 1;");
    expect(error.code).toBe('resource_exhausted');
  });

  it('lets a run make as many searches as the bound, and the next run works', async () => {
    const { value, calls } = await code.run(
      "for (let i = 0; i < 5; i++) await search('add'); return (await tools.builtin.add({ a: 2, b: 3 })).sum;",
    );
    expect(value).toBe(5);
    expect(calls.searches).toBe(5);
  });

  it('is checked like the other bounds', () => {
    expect(
      errorMessageOf(
        () => createCodeMode(localToolkit().toolkit, { maxSearches: 0 }),
        'invalid_argument',
      ),
    ).toBe('maxSearches must be a whole number, 1 or more, got 0');
  });
});
