import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { createToolkit, type Toolkit } from './toolkit.js';

// Arguments are JSON, whatever runs the tool: a value JSON cannot carry reached a local tool as it
// was and an MCP server changed (NaN as null, a Date as a string, a Map as {}).
const seen: unknown[] = [];
const local = defineTool({
  name: 'take_any',
  description: 'Takes any value.',
  input: z.object({ text: z.any() }),
  run: (args) => {
    seen.push(args);
    return { text: 'taken' };
  },
});

let toolkit: Toolkit;
const controller = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  toolkit = createToolkit({ tools: [local] });
  toolkit.addConnector(fixtureCommand(), { namespace: 'fx' });
  running = toolkit.run({ signal: controller.signal });
  await toolkit.ready();
});

afterAll(async () => {
  controller.abort();
  await running;
});

describe('tool arguments', () => {
  const cases: [string, unknown, string][] = [
    ['NaN', Number.NaN, '/text is NaN, not a finite number'],
    ['a Date', new Date(0), '/text is a Date instance, not a plain object'],
    ['a Map', new Map([['a', 1]]), '/text is a Map instance, not a plain object'],
    ['an undefined array item', [1, undefined], '/text/1 is undefined, which is not JSON'],
    [
      'a class instance',
      new (class Point {
        readonly x = 1;
      })(),
      '/text is a Point instance, not a plain object',
    ],
    [
      'an object literal with a prototype',
      { __proto__: { x: 1 } },
      '/text is an object with a prototype of its own, not a plain object',
    ],
  ];

  it.each(cases)('refuses %s for a local tool and an MCP tool alike', async (_, value, problem) => {
    for (const id of ['builtin:take_any', 'fx:echo']) {
      await expect(toolkit.call(id, { text: value })).rejects.toMatchObject({
        code: 'invalid_argument',
        message: `invalid arguments for tool "${id}": ${problem}; arguments must be JSON data`,
      });
    }
    expect(seen).toEqual([]);
  });

  it('takes a plain object of another realm, and a __proto__ member as JSON has it', async () => {
    const { runInNewContext } = await import('node:vm');
    const foreign = runInNewContext('({ a: [1, { b: "c" }] })') as unknown;
    await toolkit.call('builtin:take_any', { text: foreign });
    await toolkit.call(
      'builtin:take_any',
      JSON.parse('{"text":"x","__proto__":{"y":1}}') as Record<string, unknown>,
    );
    expect(seen).toHaveLength(2);
    seen.length = 0;
  });

  it('leaves out an undefined member, as JSON does', async () => {
    const answer = await toolkit.call('fx:echo', { text: 'hi', extra: undefined });
    expect(answer?.text).toBe('hi');
    await toolkit.call('builtin:take_any', { text: 'x', more: undefined });
    expect(seen).toEqual([{ text: 'x' }]);
  });
});
