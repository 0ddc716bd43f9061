import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { createToolkit } from './toolkit.js';

const echo = defineTool({
  name: 'echo',
  description: 'Returns its text.',
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

// What JavaScript callers (and code that lost its types) hand call and callTool by mistake.
const notTargets: readonly unknown[] = [
  undefined,
  null,
  42,
  true,
  Symbol('x'),
  [],
  {},
  { tool: 1 },
];

describe('a call target that is neither a key, an item nor a definition', () => {
  it('fails call with invalid_argument, not a TypeError', async () => {
    const toolkit = createToolkit({ tools: [echo] });
    for (const target of notTargets) {
      const error = await toolkit.call(target as string).catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code, String(target)).toBe('invalid_argument');
    }
  });

  it('fails callTool with invalid_argument, not a TypeError', async () => {
    const toolkit = createToolkit({ tools: [echo] });
    for (const target of notTargets) {
      const error = await toolkit.callTool(target as string).catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code, String(target)).toBe('invalid_argument');
    }
  });

  it('fails lookup with not_found, not a TypeError', async () => {
    const toolkit = createToolkit({ tools: [echo] });
    for (const key of notTargets) {
      const error = await toolkit.lookup(key as string).catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code, String(key)).toBe('not_found');
    }
  });

  it('still takes a key, an item and a definition', async () => {
    const toolkit = createToolkit({ tools: [echo] });
    const item = await toolkit.lookup('echo');
    for (const target of ['echo', item]) {
      expect((await toolkit.call(target, { text: 'hi' }))?.structured).toBe('hi');
    }
    expect((await toolkit.call(echo, { text: 'hi' }))?.structured).toBe('hi');
  });
});

describe('a list request that is not one', () => {
  it('fails with invalid_argument rather than listing nothing or a TypeError', async () => {
    const toolkit = createToolkit({ tools: [echo] });
    for (const request of [null, 'tool', { type: 'tools' }, { type: 'bogus' }, { type: 1 }]) {
      const error = await toolkit.list(request as never).catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code, JSON.stringify(request)).toBe(
        'invalid_argument',
      );
    }
    expect((await toolkit.list({ type: 'tool' })).tools.map((t) => t.id)).toEqual(['builtin:echo']);
  });
});
