import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';
import { localToolkit, type ToolSide } from './testing/local-toolkit.js';

// A program that returns before its tool calls answer (`items.forEach(async ...)`, a call made
// without `await`) ends the run: calls not yet sent never run, calls running are cancelled. The
// value cannot show it, so the logs (which run_code hands the model) say so.

let code: CodeMode;
let side: ToolSide;
beforeAll(() => {
  const local = localToolkit();
  side = local.side;
  code = createCodeMode(local.toolkit, { timeoutMs: 60_000 });
});
afterAll(async () => {
  await code.close();
});

describe('tool calls a program did not await', () => {
  it('are named in a warning when the program returns before they were sent', async () => {
    const marks = side.marks;
    const { value, logs, calls } = await code.run(`
      [1, 2].forEach(async () => { await tools.builtin.mark(); });
      return 'done';
    `);
    expect(value).toBe('done');
    expect(side.marks).toBe(marks);
    expect(calls.total).toBe(0);
    expect(logs.at(-1)).toMatchObject({ level: 'warn' });
    expect(logs.at(-1)?.text).toContain('2 tool calls (tools.builtin.mark ×2)');
  });

  it('are named in a warning when the program returns while one runs', async () => {
    const { value, logs } = await code.run(`
      tools.builtin.wait_forever();
      const { sum } = await tools.builtin.add({ a: 1, b: 2 });
      return sum;
    `);
    expect(value).toBe(3);
    expect(logs.at(-1)?.text).toContain('a tool call (tools.builtin.wait_forever)');
  });

  it('leave no warning when every call was awaited', async () => {
    const { logs } = await code.run(`
      await Promise.all([1, 2].map(() => tools.builtin.mark()));
      console.log('ok');
    `);
    expect(logs).toEqual([{ level: 'log', text: 'ok' }]);
  });
});
