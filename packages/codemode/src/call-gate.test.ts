import { createToolkit, defineTool } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeMode } from './code-mode.js';

// A tool that counts how many of its calls run at once, each answering on a later turn.
const seen = { running: 0, most: 0, started: [] as number[] };
const toolkit = createToolkit({
  tools: [
    defineTool({
      name: 'slow',
      description: 'Answers its number on a later turn of the event loop.',
      input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      run: async (args, { signal }) => {
        seen.started.push(args.n as number);
        seen.most = Math.max(seen.most, ++seen.running);
        try {
          await new Promise((resolve) => setImmediate(resolve));
          signal.throwIfAborted();
          return { n: args.n as number };
        } finally {
          seen.running--;
        }
      },
    }),
  ],
});
const code = createCodeMode(toolkit, { maxConcurrentCalls: 3, maxToolCalls: 100 });
afterAll(async () => {
  await code.close();
  await toolkit.close();
});

describe('maxConcurrentCalls', () => {
  it('holds the calls of a Promise.all in flight to the bound, starting the rest in order', async () => {
    seen.most = 0;
    seen.started = [];
    const { value, calls } = await code.run(`
      const all = await Promise.all(Array.from({ length: 20 }, (_, n) => tools.builtin.slow({ n })));
      return all.map((answer) => answer.n);
    `);
    expect(value).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(calls).toMatchObject({ total: 20, errors: 0 });
    expect(seen.most).toBe(3);
    expect(seen.started).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => createCodeMode(toolkit, { maxConcurrentCalls: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
