import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { backendKey, ToolError, type Tool, type ToolBackend } from '@toolplane/toolmodel';
import { createBm25Searcher } from './bm25-searcher.js';
import type { ToolIndex } from './index-types.js';
import { createIndex } from './tool-index.js';

const NAMESPACES = ['alpha', 'beta', 'gamma'] as const;
const NAMES = [
  'create_issue',
  'listIssues',
  'send-message',
  'query.run',
  'deploy',
  'echo',
] as const;
// Description words that never occur in a name or namespace, so a search for one finds exactly
// the tools whose description has it.
const WORDS = [
  'invoice',
  'ticket',
  'folder',
  'calendar',
  'event',
  'user',
  'report',
  'backup',
] as const;

const backendArb: fc.Arbitrary<ToolBackend> = fc.oneof(
  fc.constantFrom('s1', 's2').map((serverName) => ({ kind: 'mcp', mcp: { serverName } }) as const),
  fc.constantFrom('l1', 'l2').map((name) => ({ kind: 'local', local: { name } }) as const),
  fc.constant({ kind: 'provider', provider: { providerId: 'p', toolId: 't' } } as const),
);

const toolArb: fc.Arbitrary<Tool> = fc.record({
  name: fc.constantFrom(...NAMES),
  namespace: fc.constantFrom(...NAMESPACES),
  description: fc
    .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 })
    .map((w) => w.join(' ')),
  inputSchema: fc.constant({ type: 'object' as const }),
});

type Command =
  | {
      readonly op: 'register';
      readonly tool: Tool;
      readonly backend: ToolBackend;
      readonly replace: boolean;
    }
  | { readonly op: 'unregisterBackend'; readonly id: string; readonly backend: ToolBackend }
  | { readonly op: 'unregisterTool'; readonly id: string }
  | { readonly op: 'removeNamespace'; readonly namespace: string };

const idArb = fc
  .tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...NAMES))
  .map(([ns, name]) => `${ns}:${name}`);

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('register' as const),
      tool: toolArb,
      backend: backendArb,
      replace: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('unregisterBackend' as const),
      id: idArb,
      backend: backendArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('unregisterTool' as const), id: idArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('removeNamespace' as const),
      namespace: fc.constantFrom(...NAMESPACES),
    }),
  },
);

interface ModelEntry {
  tool: Tool;
  backends: Map<string, ToolBackend>;
}

/** The reference: a plain Map with the documented rules, no indexing, no caching. */
function applyToModel(model: Map<string, ModelEntry>, command: Command): void {
  switch (command.op) {
    case 'register': {
      const id = `${command.tool.namespace ?? ''}:${command.tool.name}`;
      const existing = model.get(id);
      if (existing === undefined) {
        model.set(id, {
          tool: command.tool,
          backends: new Map([[backendKey(command.backend), command.backend]]),
        });
        return;
      }
      if (existing.tool.description !== command.tool.description) {
        if (!command.replace) return; // conflict: nothing changes
        existing.tool = command.tool;
      }
      existing.backends.set(backendKey(command.backend), command.backend);
      return;
    }
    case 'unregisterBackend': {
      const entry = model.get(command.id);
      if (entry === undefined) return;
      entry.backends.delete(backendKey(command.backend));
      if (entry.backends.size === 0) model.delete(command.id);
      return;
    }
    case 'unregisterTool':
      model.delete(command.id);
      return;
    case 'removeNamespace':
      for (const id of [...model.keys()])
        if (id.startsWith(`${command.namespace}:`)) model.delete(id);
  }
}

function applyToIndex(index: ToolIndex, command: Command): void {
  try {
    switch (command.op) {
      case 'register':
        index.registerTool(command.tool, command.backend, { replace: command.replace });
        return;
      case 'unregisterBackend':
        index.unregisterBackend(command.id, command.backend);
        return;
      case 'unregisterTool':
        index.unregisterTool(command.id);
        return;
      case 'removeNamespace':
        index.removeNamespace(command.namespace);
    }
  } catch (error) {
    if (!(ToolError.isInstance(error) && error.code === 'conflict')) throw error;
  }
}

function allPages(index: ToolIndex, limit: number): string[] {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = index.listTools({ limit, ...(cursor === undefined ? {} : { cursor }) });
    ids.push(...page.entries.map((entry) => entry.id));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}

describe('ToolIndex against a Map model', () => {
  it('keeps getTool, listTools and search consistent with the model', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(commandArb, { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (commands, limit) => {
          // Exact word matching is what the model can predict: no synonym expansion.
          const index = createIndex({ searcher: createBm25Searcher({ synonyms: [] }) });
          const model = new Map<string, ModelEntry>();
          let lastVersion = index.version;
          const versions: number[] = [];
          index.onChange((event) => versions.push(event.version));
          for (const command of commands) {
            applyToModel(model, command);
            applyToIndex(index, command);
            expect(index.version).toBeGreaterThanOrEqual(lastVersion);
            lastVersion = index.version;
          }
          expect(versions).toEqual(versions.map((_, i) => i + 1));

          const expectedIds = [...model.keys()].sort();
          expect(allPages(index, limit)).toEqual(expectedIds);
          expect(index.size).toBe(model.size);
          for (const [id, entry] of model) {
            const got = index.getTool(id);
            expect(got.tool.description).toBe(entry.tool.description);
            expect(new Set(got.backends.map(backendKey))).toEqual(new Set(entry.backends.keys()));
            expect(got.backend).toBeDefined();
          }
          for (const namespace of NAMESPACES) {
            const inNamespace = expectedIds.filter((id) => id.startsWith(`${namespace}:`));
            expect(index.listTools({ namespace, limit: 100 }).entries.map((e) => e.id)).toEqual(
              inNamespace,
            );
          }
          for (const word of WORDS) {
            const expected = [...model]
              .filter(([, e]) => e.tool.description?.split(' ').includes(word))
              .map(([id]) => id)
              .sort();
            const { results } = await index.search(word, { limit: 100 });
            expect(results.map((r) => r.id).sort()).toEqual(expected);
            // Filtered searches skip replaced and removed tools as well.
            for (const namespace of NAMESPACES) {
              const filtered = await index.search(word, { limit: 100, namespace });
              expect(filtered.results.map((r) => r.id).sort()).toEqual(
                expected.filter((id) => id.startsWith(`${namespace}:`)),
              );
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('visits every tool exactly once when paging search results', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(toolArb, { maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        async (tools, limit) => {
          const index = createIndex();
          for (const tool of tools)
            index.registerTool(tool, { kind: 'local', local: { name: 'x' } }, { replace: true });
          const expected = (await index.search('invoice ticket folder report user', { limit: 100 }))
            .results;
          const seen: string[] = [];
          let cursor: string | undefined;
          do {
            const page = await index.search('invoice ticket folder report user', {
              limit,
              ...(cursor === undefined ? {} : { cursor }),
            });
            seen.push(...page.results.map((r) => r.id));
            cursor = page.nextCursor;
          } while (cursor !== undefined);
          expect(seen).toEqual(expected.map((r) => r.id));
          const scores = expected.map((r) => r.score);
          expect(scores).toEqual([...scores].sort((a, b) => b - a));
        },
      ),
    );
  });

  it('rejects every earlier cursor once the index changes', () => {
    fc.assert(
      fc.property(fc.array(toolArb, { minLength: 3, maxLength: 20 }), toolArb, (tools, extra) => {
        const index = createIndex();
        for (const tool of tools)
          index.registerTool(tool, { kind: 'local', local: { name: 'x' } }, { replace: true });
        const page = index.listTools({ limit: 1 });
        fc.pre(page.nextCursor !== undefined);
        const before = index.version;
        index.registerTool(
          { ...extra, name: 'fresh_tool' },
          { kind: 'local', local: { name: 'y' } },
          { replace: true },
        );
        fc.pre(index.version !== before);
        let code: string | undefined;
        try {
          index.listTools({ limit: 1, cursor: page.nextCursor });
        } catch (error) {
          code = ToolError.isInstance(error) ? error.code : 'other';
        }
        expect(code).toBe('invalid_cursor');
      }),
    );
  });
});
