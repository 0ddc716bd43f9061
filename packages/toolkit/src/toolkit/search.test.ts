import { createBm25Searcher, createLearningSearcher } from '@toolplane/toolindex';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { createToolkit, type Toolkit } from './toolkit.js';

const open: Toolkit[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolkit) => toolkit.close()));
});

const tool = (name: string, description: string) =>
  defineTool({ name, description, input: z.object({}), run: () => ({}) });

const TOOLS = [
  tool('create_refund', 'Refund a charge to the card it was paid with.'),
  tool('list_charges', 'List the charges of a customer.'),
  tool('void_invoice', 'Void an open invoice so it can no longer be paid.'),
];

function toolkitWith(options: Parameters<typeof createToolkit>[0]): Toolkit {
  const toolkit = createToolkit(options);
  open.push(toolkit);
  return toolkit;
}

const ids = async (toolkit: Toolkit, query: string) =>
  (await toolkit.search(query, { limit: 3 })).results.map((r) => r.id);

describe('toolkit.search', () => {
  it('searches with the searcher it was given', async () => {
    const toolkit = toolkitWith({ tools: TOOLS, searcher: createBm25Searcher() });
    expect((await ids(toolkit, 'refund a charge'))[0]).toBe('builtin:create_refund');
  });

  it('learns when a session calls a tool it was shown, and only then', async () => {
    const toolkit = toolkitWith({ tools: TOOLS, searcher: createLearningSearcher() });
    const query = 'money the customer paid';
    const before = await ids(toolkit, query);
    expect(before[0]).not.toBe('builtin:create_refund');

    // A call without a search before it, or by another session, teaches nothing.
    await toolkit.callTool('builtin:create_refund', {}, { sessionKey: 'a' });
    await toolkit.search(query, { sessionKey: 'b' });
    await toolkit.callTool('builtin:create_refund', {}, { sessionKey: 'c' });
    expect(await ids(toolkit, query)).toEqual(before);

    // A search, then a call of one of its results in the same session, does. Three sessions:
    // `customer` and `paid` are in the tools' own text, so their evidence counts less than a
    // word no tool holds (`money`).
    for (const session of ['d', 'e', 'f']) {
      const shown = await toolkit.search(query, { sessionKey: session, limit: 3 });
      expect(shown.results.map((r) => r.id)).toContain('builtin:create_refund');
      await toolkit.callTool('builtin:create_refund', {}, { sessionKey: session });
    }
    expect((await ids(toolkit, query))[0]).toBe('builtin:create_refund');
  });

  it('refuses an options object with a key it does not know, naming the near one', () => {
    expect(() =>
      createToolkit({ searchr: createBm25Searcher() } as Parameters<typeof createToolkit>[0]),
    ).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: expect.stringMatching(/did you mean "searcher"/),
      }),
    );
  });
});
