import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { CallResult } from './types.js';
import { createToolkit } from './toolkit.js';

const add = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number().default(0) }),
  output: z.object({ sum: z.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});

const untyped = defineTool({
  name: 'echo',
  description: 'Echoes.',
  input: { type: 'object', properties: { text: { type: 'string' } } },
  run: (input) => input,
});

const toolkit = createToolkit({ tools: [add, untyped] });

describe('Toolkit.call types', () => {
  it('types structured from the zod output schema of a definition', async () => {
    const result = await toolkit.call(add, { a: 2 });
    expectTypeOf(result).toEqualTypeOf<CallResult<{ sum: number }>>();
    expectTypeOf(result.structured).toEqualTypeOf<{ sum: number }>();
  });

  it('types the input from the zod input schema, defaults optional', () => {
    // b has a default, so callers may leave it out.
    void toolkit.call(add, { a: 2 });
    void toolkit.call(add, { a: 2, b: 3 });
    // @ts-expect-error a must be a number
    void toolkit.call(add, { a: 'two' });
    // @ts-expect-error a is required
    void toolkit.call(add, {});
  });

  it('types a definition without an output schema as maybe undefined, structured unknown', async () => {
    const result = await toolkit.call(untyped, { text: 'hi' });
    expectTypeOf(result).toEqualTypeOf<CallResult | undefined>();
    expectTypeOf(result?.structured).toEqualTypeOf<unknown>();
  });

  it('types callTool with a definition the same way', async () => {
    const result = await toolkit.callTool(add, { a: 1 });
    expectTypeOf(result.structured).toEqualTypeOf<{ sum: number }>();
    expectTypeOf((await toolkit.callTool('builtin:add')).structured).toEqualTypeOf<unknown>();
  });

  it('keeps a call by key as a resource with an optional unknown structured', async () => {
    const result = await toolkit.call('add', { a: 2 });
    expectTypeOf(result?.structured).toEqualTypeOf<unknown>();
    expectTypeOf(result?.text).toEqualTypeOf<string | undefined>();
  });
});
