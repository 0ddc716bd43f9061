import { describe, expect, it } from 'vitest';
import { createCodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';
import { localToolkit } from './testing/local-toolkit.js';

// `close()` ends every worker. A run it ends is cancelled by its caller's code mode, not lost
// by a failing sandbox; a run that queued or comes after gets the same error family as any
// other failed run.

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
}

/** Resolves once `count` calls of `builtin:wait_forever` have started (within 20 s). */
async function started(side: { waiting: number }, count: number): Promise<void> {
  for (let turn = 0; side.waiting < count && turn < 2_000; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(side.waiting).toBe(count);
}

describe('close', () => {
  it('cancels a run in flight, with its tool call, and says code mode was closed', async () => {
    const { toolkit, side } = localToolkit();
    const code = createCodeMode(toolkit, { timeoutMs: 60_000 });
    const running = failure(code.run('await tools.builtin.wait_forever(); return 1;'));
    await started(side, 1);
    await code.close();
    const error = await running;
    expect(error).toBeInstanceOf(CodeModeError);
    expect(error).toMatchObject({ code: 'cancelled' });
    expect((error as CodeModeError).message).toContain('closed');
    expect(side.cancelled).toBe(1);
  });

  it('fails a run that queued, and one made after, as CodeModeErrors', async () => {
    const { toolkit, side } = localToolkit();
    const code = createCodeMode(toolkit, { timeoutMs: 60_000, maxConcurrentRuns: 1 });
    const first = failure(code.run('await tools.builtin.wait_forever();'));
    await started(side, 1);
    const queued = failure(code.run('return 2;'));
    await code.close();
    const after = failure(code.run('return 3;'));
    for (const error of [await first, await queued, await after]) {
      expect(error).toBeInstanceOf(CodeModeError);
      expect((error as CodeModeError).message).toContain('closed');
    }
  });
});
