import { describe, expect, it } from 'vitest';
import { ToolError, type McpBackend, type Tool, type ToolBackend } from '@toolplane/toolmodel';
import { errorCodeOf, rejectionCodeOf } from '@toolplane/toolmodel/testing';
import type { IndexChangeEvent } from './index-types.js';
import { createIndex } from './tool-index.js';

const mcp = (serverName: string): ToolBackend => ({ kind: 'mcp', mcp: { serverName } });
const local = (name: string): ToolBackend => ({ kind: 'local', local: { name } });
const provider = (providerId: string, toolId: string): ToolBackend => ({
  kind: 'provider',
  provider: { providerId, toolId },
});

function tool(name: string, namespace = 'github', extra: Partial<Tool> = {}): Tool {
  return {
    name,
    namespace,
    description: `Does ${name.replace(/_/g, ' ')}.`,
    inputSchema: { type: 'object', properties: { owner: { type: 'string' } }, required: ['owner'] },
    ...extra,
  };
}

describe('registerTool', () => {
  it('returns the entry with the canonical ID and the selected backend', () => {
    const index = createIndex();
    const entry = index.registerTool(tool('create_issue'), mcp('github'));
    expect(entry.id).toBe('github:create_issue');
    expect(entry.backend).toEqual(mcp('github'));
    expect(entry.backends).toEqual([mcp('github')]);
    expect(index.getTool('github:create_issue')).toBe(entry);
    expect(index.size).toBe(1);
  });

  it('uses namespace:name:version as the ID of a versioned tool', () => {
    const index = createIndex();
    const entry = index.registerTool(tool('deploy', 'ops', { version: '2.1.0' }), local('deploy'));
    expect(entry.id).toBe('ops:deploy:2.1.0');
    expect(index.hasTool('ops:deploy')).toBe(false);
  });

  it('adds a backend when the same definition is registered again', () => {
    const index = createIndex();
    index.registerTool(tool('create_issue'), mcp('github'));
    const entry = index.registerTool(tool('create_issue'), local('create_issue'));
    expect(entry.backends).toEqual([mcp('github'), local('create_issue')]);
    expect(entry.backend).toEqual(local('create_issue'));
  });

  it('treats a definition with its keys in another order as the same definition', () => {
    const index = createIndex();
    index.registerTool(tool('create_issue'), mcp('github'));
    const reordered: Tool = {
      inputSchema: {
        required: ['owner'],
        properties: { owner: { type: 'string' } },
        type: 'object',
      },
      description: 'Does create issue.',
      namespace: 'github',
      name: 'create_issue',
    };
    expect(() => index.registerTool(reordered, mcp('mirror'))).not.toThrow();
    expect(index.getBackends('github:create_issue')).toHaveLength(2);
  });

  it('replaces the backend with the same identity key instead of adding one', () => {
    const index = createIndex();
    index.registerTool(tool('create_issue'), mcp('github'));
    index.registerTool(tool('create_issue'), mcp('github'));
    expect(index.getBackends('github:create_issue')).toHaveLength(1);
  });

  it('throws conflict for a different definition under the same ID', () => {
    const index = createIndex();
    index.registerTool(tool('create_issue'), mcp('github'));
    const changed = tool('create_issue', 'github', { description: 'Opens an issue.' });
    expect(errorCodeOf(() => index.registerTool(changed, mcp('other')))).toBe('conflict');
    expect(index.getTool('github:create_issue').tool.description).toBe('Does create issue.');
    expect(index.getBackends('github:create_issue')).toHaveLength(1);
  });

  it('replaces the definition and keeps the backends when replace is set', () => {
    const index = createIndex();
    index.registerTool(tool('create_issue'), mcp('github'));
    const changed = tool('create_issue', 'github', { description: 'Opens an issue.' });
    const entry = index.registerTool(changed, local('issue'), { replace: true });
    expect(entry.tool.description).toBe('Opens an issue.');
    expect(entry.backends).toEqual([mcp('github'), local('issue')]);
  });

  it('throws invalid_tool and invalid_backend for malformed input', () => {
    const index = createIndex();
    expect(errorCodeOf(() => index.registerTool(tool('bad name'), mcp('github')))).toBe(
      'invalid_tool',
    );
    expect(
      errorCodeOf(() => index.registerTool(tool('ok'), { kind: 'ftp' } as unknown as ToolBackend)),
    ).toBe('invalid_backend');
    expect(index.size).toBe(0);
    expect(index.version).toBe(0);
  });

  it('throws invalid_tool for a cyclic definition', () => {
    const index = createIndex();
    const cyclic = tool('loop') as Tool & { _meta: Record<string, unknown> };
    cyclic._meta = {};
    cyclic._meta.self = cyclic._meta;
    expect(errorCodeOf(() => index.registerTool(cyclic, mcp('x')))).toBe('invalid_tool');
  });

  it('normalises tags in the stored definition', () => {
    const index = createIndex();
    const entry = index.registerTool(
      tool('t', 'ns', { tags: [' Code Review ', 'code review'] }),
      mcp('x'),
    );
    expect(entry.tool.tags).toEqual(['code-review']);
  });
});

describe('snapshots', () => {
  it('keeps the index intact when the caller mutates the registered or returned objects', () => {
    const index = createIndex();
    const input = tool('create_issue');
    const backend = mcp('github');
    index.registerTool(input, backend);
    input.description = 'changed';
    (input.inputSchema.properties as Record<string, unknown>).owner = { type: 'number' };
    ((backend as McpBackend).mcp as { serverName: string }).serverName = 'changed';

    const entry = index.getTool('github:create_issue');
    expect(entry.tool.description).toBe('Does create issue.');
    expect(entry.backend).toEqual(mcp('github'));
    expect(() => {
      (entry.tool as { description?: string }).description = 'x';
    }).toThrow(TypeError);
    expect(() => {
      (entry.backends as ToolBackend[]).push(local('x'));
    }).toThrow(TypeError);
    expect(index.getTool('github:create_issue').tool.description).toBe('Does create issue.');
  });
});

describe('registerTools', () => {
  it('registers nothing when one entry is invalid', () => {
    const index = createIndex();
    const code = errorCodeOf(() =>
      index.registerTools([
        { tool: tool('a'), backend: mcp('github') },
        { tool: tool('b'), backend: mcp('github') },
        { tool: tool('c d'), backend: mcp('github') },
      ]),
    );
    expect(code).toBe('invalid_tool');
    expect(index.size).toBe(0);
    expect(index.version).toBe(0);
  });

  it('registers nothing when one entry conflicts with a registered tool', () => {
    const index = createIndex();
    index.registerTool(tool('a'), mcp('github'));
    const code = errorCodeOf(() =>
      index.registerTools([
        { tool: tool('b'), backend: mcp('github') },
        { tool: tool('a', 'github', { title: 'different' }), backend: mcp('github') },
      ]),
    );
    expect(code).toBe('conflict');
    expect(index.hasTool('github:b')).toBe(false);
  });

  it('throws conflict for two different definitions of one ID in the batch', () => {
    const index = createIndex();
    const code = errorCodeOf(() =>
      index.registerTools([
        { tool: tool('a'), backend: mcp('one') },
        { tool: tool('a', 'github', { title: 'other' }), backend: mcp('two') },
      ]),
    );
    expect(code).toBe('conflict');
    expect(index.size).toBe(0);
  });

  it('merges the backends of one definition listed twice', () => {
    const index = createIndex();
    const entries = index.registerTools([
      { tool: tool('a'), backend: mcp('one') },
      { tool: tool('a'), backend: mcp('two') },
    ]);
    expect(entries).toHaveLength(2);
    expect(index.getBackends('github:a')).toEqual([mcp('one'), mcp('two')]);
  });
});

describe('registerMcpTools', () => {
  const listed = [
    { name: 'create_issue', description: 'Create an issue', inputSchema: { type: 'object' } },
    { name: 'list_issues', description: 'List issues', inputSchema: { type: 'object' } },
  ];

  it('registers a tools/list result under the server name with an mcp backend', () => {
    const index = createIndex();
    const entries = index.registerMcpTools('github', listed);
    expect(entries.map((e) => e.id)).toEqual(['github:create_issue', 'github:list_issues']);
    expect(index.getTool('github:list_issues').backend).toEqual(mcp('github'));
  });

  it('uses the namespace option', () => {
    const index = createIndex();
    index.registerMcpTools('gh-server', listed, { namespace: 'gh', tags: ['VCS'] });
    expect(index.getTool('gh:create_issue').tool.tags).toEqual(['vcs']);
    expect(index.getTool('gh:create_issue').backend).toEqual(mcp('gh-server'));
  });

  it('throws invalid_tool and registers nothing for JSON that is not an MCP tool', () => {
    const index = createIndex();
    expect(errorCodeOf(() => index.registerMcpTools('github', [...listed, { name: 3 }]))).toBe(
      'invalid_tool',
    );
    expect(index.size).toBe(0);
  });

  it('unbinds the server from tools it no longer lists when prune is set', () => {
    const index = createIndex();
    index.registerMcpTools('github', listed);
    index.registerTool(
      tool('list_issues', 'github', {
        description: 'List issues',
        inputSchema: { type: 'object' },
      }),
      local('cache'),
      {
        replace: true,
      },
    );
    index.registerMcpTools('github', [listed[0]], { prune: true, replace: true });
    expect(index.hasTool('github:create_issue')).toBe(true);
    expect(index.getBackends('github:list_issues')).toEqual([local('cache')]);
    index.registerMcpTools('github', [], { prune: true });
    expect(index.hasTool('github:create_issue')).toBe(false);
  });
});

describe('unregistering', () => {
  it('removes one backend and keeps the tool while others remain', () => {
    const index = createIndex();
    index.registerTool(tool('a'), mcp('one'));
    index.registerTool(tool('a'), local('a'));
    expect(index.unregisterBackend('github:a', local('a'))).toBe(true);
    expect(index.getTool('github:a').backend).toEqual(mcp('one'));
    expect(index.unregisterBackend('github:a', local('a'))).toBe(false);
  });

  it('removes the tool with its last backend', () => {
    const index = createIndex();
    index.registerTool(tool('a'), mcp('one'));
    expect(index.unregisterBackend('github:a', mcp('one'))).toBe(true);
    expect(index.hasTool('github:a')).toBe(false);
    expect(index.listNamespaces().namespaces).toEqual([]);
  });

  it('removes a tool with unregisterTool and reports unknown ones as false', () => {
    const index = createIndex();
    index.registerTool(tool('a'), mcp('one'));
    expect(index.unregisterTool('github:a')).toBe(true);
    expect(index.unregisterTool('github:a')).toBe(false);
    expect(errorCodeOf(() => index.unregisterTool('a:b:c:d'))).toBe('invalid_tool_id');
  });

  it('removes a whole namespace', async () => {
    const index = createIndex();
    index.registerTools([
      { tool: tool('a'), backend: mcp('gh') },
      { tool: tool('b'), backend: mcp('gh') },
      { tool: tool('post', 'slack'), backend: mcp('slack') },
    ]);
    expect(index.removeNamespace('github')).toBe(2);
    expect(index.removeNamespace('github')).toBe(0);
    expect(index.listTools().entries.map((e) => e.id)).toEqual(['slack:post']);
    expect((await index.search('post')).results.map((r) => r.id)).toEqual(['slack:post']);
  });
});

describe('reads', () => {
  it('throws tool_not_found naming the known namespaces', () => {
    const index = createIndex();
    index.registerTool(tool('a', 'github'), mcp('gh'));
    index.registerTool(tool('b', 'builtin'), local('b'));
    let caught: unknown;
    try {
      index.getTool('github:create_issue');
    } catch (error) {
      caught = error;
    }
    expect(ToolError.isInstance(caught) && caught.code).toBe('tool_not_found');
    expect((caught as ToolError).message).toContain('builtin, github');
    expect((caught as ToolError).toolId).toBe('github:create_issue');
  });

  it('throws invalid_tool_id for malformed IDs', () => {
    const index = createIndex();
    for (const bad of ['', 'a b', 'x:y:z:w', ':name', 'ns:']) {
      expect(errorCodeOf(() => index.getTool(bad))).toBe('invalid_tool_id');
      expect(errorCodeOf(() => index.getBackends(bad))).toBe('invalid_tool_id');
      expect(errorCodeOf(() => index.hasTool(bad))).toBe('invalid_tool_id');
    }
    expect(errorCodeOf(() => index.getBackends('ns:missing'))).toBe('tool_not_found');
  });

  it('registers tools without a namespace under their bare name', () => {
    const index = createIndex();
    index.registerTool({ name: 'echo', inputSchema: { type: 'object' } }, local('echo'));
    expect(index.getTool('echo').tool.name).toBe('echo');
    expect(index.listNamespaces().namespaces).toEqual([]);
  });
});

describe('backend selection', () => {
  it('prefers local, then provider, then mcp', () => {
    const index = createIndex();
    index.registerTool(tool('a'), mcp('gh'));
    expect(index.getTool('github:a').backend?.kind).toBe('mcp');
    index.registerTool(tool('a'), provider('p', 'a'));
    expect(index.getTool('github:a').backend?.kind).toBe('provider');
    index.registerTool(tool('a'), local('a'));
    expect(index.getTool('github:a').backend?.kind).toBe('local');
  });

  it('uses a custom selector', () => {
    const index = createIndex({
      selectBackend: (backends) => backends.find((b) => b.kind === 'mcp'),
    });
    index.registerTool(tool('a'), local('a'));
    expect(index.getTool('github:a').backend).toBeUndefined();
    index.registerTool(tool('a'), mcp('gh'));
    expect(index.getTool('github:a').backend).toEqual(mcp('gh'));
  });

  it('wraps a throwing selector as internal and registers nothing', () => {
    const index = createIndex({
      selectBackend: () => {
        throw new Error('boom');
      },
    });
    expect(errorCodeOf(() => index.registerTool(tool('a'), local('a')))).toBe('internal');
    expect(index.size).toBe(0);
  });
});

describe('listTools', () => {
  function filled(count: number) {
    const index = createIndex();
    index.registerTools(
      Array.from({ length: count }, (_, i) => ({
        tool: tool(`t${String(i).padStart(3, '0')}`, i % 2 === 0 ? 'even' : 'odd', {
          tags: i % 3 === 0 ? ['three'] : [],
        }),
        backend: mcp('s'),
      })),
    );
    return index;
  }

  it('pages through every tool once, in ID order', () => {
    const index = filled(45);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = index.listTools({ limit: 10, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toHaveLength(45);
    expect(seen).toEqual([...seen].sort());
  });

  it('filters by namespace and by tags', () => {
    const index = filled(12);
    expect(index.listTools({ namespace: 'odd' }).entries).toHaveLength(6);
    expect(index.listTools({ tags: ['THREE'] }).entries.map((e) => e.id)).toEqual([
      'even:t000',
      'even:t006',
      'odd:t003',
      'odd:t009',
    ]);
    expect(index.listTools({ namespace: 'nope' }).entries).toEqual([]);
  });

  it('omits nextCursor on the last page', () => {
    const index = filled(20);
    expect(index.listTools({ limit: 20 }).nextCursor).toBeUndefined();
    expect(index.listTools({ limit: 19 }).nextCursor).toBeTypeOf('string');
  });

  it('throws invalid_cursor for a cursor used after the index changed', () => {
    const index = filled(30);
    const { nextCursor } = index.listTools({ limit: 10 });
    index.registerTool(tool('late'), mcp('s'));
    expect(errorCodeOf(() => index.listTools({ limit: 10, cursor: nextCursor! }))).toBe(
      'invalid_cursor',
    );
  });

  it('throws invalid_cursor for forged cursors and cursors of another listing', () => {
    const index = filled(30);
    const { nextCursor } = index.listTools({ limit: 10 });
    const other = filled(30).listTools({ limit: 10 }).nextCursor!;
    for (const bad of ['', 'abc', 'MC4xMC54', `${nextCursor!}x`, other, 'a'.repeat(500)]) {
      expect(errorCodeOf(() => index.listTools({ cursor: bad }))).toBe('invalid_cursor');
    }
    expect(errorCodeOf(() => index.listTools({ namespace: 'odd', cursor: nextCursor! }))).toBe(
      'invalid_cursor',
    );
    expect(errorCodeOf(() => index.listNamespaces({ cursor: nextCursor! }))).toBe('invalid_cursor');
  });

  it('throws invalid_argument for a limit out of range or not an integer', () => {
    const index = filled(3);
    for (const limit of [0, 101, 1.5, -1, Number.NaN, '10' as unknown as number]) {
      expect(errorCodeOf(() => index.listTools({ limit }))).toBe('invalid_argument');
    }
    expect(index.listTools({ limit: 100 }).entries).toHaveLength(3);
  });
});

describe('listNamespaces', () => {
  it('lists namespaces with tool counts, paged', () => {
    const index = createIndex();
    for (const ns of ['c', 'a', 'b']) index.registerTool(tool('x', ns), mcp(ns));
    index.registerTool(tool('y', 'a'), mcp('a'));
    const first = index.listNamespaces({ limit: 2 });
    expect(first.namespaces).toEqual([
      { namespace: 'a', toolCount: 2 },
      { namespace: 'b', toolCount: 1 },
    ]);
    const second = index.listNamespaces({ limit: 2, cursor: first.nextCursor! });
    expect(second).toEqual({ namespaces: [{ namespace: 'c', toolCount: 1 }] });
  });
});

describe('search', () => {
  function catalogue() {
    const index = createIndex();
    index.registerTools([
      {
        tool: tool('create_issue', 'github', {
          description: 'Create a new issue in a repository.',
        }),
        backend: mcp('gh'),
      },
      {
        tool: tool('list_issues', 'github', { description: 'List issues in a repository.' }),
        backend: mcp('gh'),
      },
      {
        tool: tool('post_message', 'slack', {
          description: 'Post a message to a channel.',
          tags: ['chat'],
        }),
        backend: mcp('slack'),
      },
      {
        tool: tool('query', 'postgres', {
          title: 'Run SQL',
          description: 'Run a read-only SQL query.',
        }),
        backend: mcp('pg'),
      },
    ]);
    return index;
  }

  it('ranks the tool whose name matches first', async () => {
    const { results } = await catalogue().search('create issue');
    expect(results[0]?.id).toBe('github:create_issue');
  });

  it('returns summaries without schemas', async () => {
    const { results } = await catalogue().search('sql');
    expect(results).toEqual([
      {
        id: 'postgres:query',
        name: 'query',
        namespace: 'postgres',
        title: 'Run SQL',
        shortDescription: 'Run a read-only SQL query.',
        tags: [],
        score: results[0]!.score,
      },
    ]);
    expect(results[0]!.score).toBeGreaterThan(0);
  });

  it('lists by ID with score 0 for an empty query', async () => {
    const { results } = await catalogue().search('   ');
    expect(results.map((r) => r.id)).toEqual([
      'github:create_issue',
      'github:list_issues',
      'postgres:query',
      'slack:post_message',
    ]);
    expect(results.every((r) => r.score === 0)).toBe(true);
  });

  it('filters by namespace and tags', async () => {
    const index = catalogue();
    expect((await index.search('issue', { namespace: 'slack' })).results).toEqual([]);
    expect((await index.search('message', { tags: ['chat'] })).results.map((r) => r.id)).toEqual([
      'slack:post_message',
    ]);
  });

  it('treats regex and query-syntax characters as plain text', async () => {
    const index = catalogue();
    for (const query of [
      '.*',
      '(',
      'issue AND NOT',
      '"unterminated',
      '\\',
      'title:sql^2',
      '[a-z]+',
    ]) {
      await expect(index.search(query)).resolves.toHaveProperty('results');
    }
    expect((await index.search('issue*')).results[0]?.id).toMatch(/issue/);
  });

  it('bounds very long queries', async () => {
    const index = catalogue();
    const page = await index.search('issue '.repeat(100_000));
    expect(page.results.length).toBeGreaterThan(0);
  });

  it('pages through results and invalidates cursors on change', async () => {
    const index = catalogue();
    const first = await index.search('issue', { limit: 1 });
    expect(first.results).toHaveLength(1);
    const second = await index.search('issue', { limit: 1, cursor: first.nextCursor! });
    expect(second.results[0]?.id).not.toBe(first.results[0]?.id);
    expect(second.nextCursor).toBeUndefined();
    expect(await rejectionCodeOf(() => index.search('other', { cursor: first.nextCursor! }))).toBe(
      'invalid_cursor',
    );
    index.unregisterTool('postgres:query');
    expect(await rejectionCodeOf(() => index.search('issue', { cursor: first.nextCursor! }))).toBe(
      'invalid_cursor',
    );
  });

  it('throws invalid_argument for a non-string query or bad limit', async () => {
    const index = catalogue();
    expect(await rejectionCodeOf(() => index.search(3 as unknown as string))).toBe(
      'invalid_argument',
    );
    expect(await rejectionCodeOf(() => index.search('x', { limit: 0 }))).toBe('invalid_argument');
  });

  it('throws cancelled for an aborted signal', async () => {
    const index = catalogue();
    expect(await rejectionCodeOf(() => index.search('x', { signal: AbortSignal.abort() }))).toBe(
      'cancelled',
    );
  });

  it('follows definition replacement', async () => {
    const index = catalogue();
    index.registerTool(tool('query', 'postgres', { description: 'Vacuum a table.' }), mcp('pg'), {
      replace: true,
    });
    expect((await index.search('sql')).results).toEqual([]);
    expect((await index.search('vacuum')).results[0]?.id).toBe('postgres:query');
  });
});

describe('onChange', () => {
  it('emits events with a strictly rising version after each change', () => {
    const index = createIndex();
    const events: IndexChangeEvent[] = [];
    index.onChange((event) => {
      expect(index.version).toBeGreaterThanOrEqual(event.version);
      events.push(event);
    });
    index.registerTool(tool('a'), mcp('one'));
    index.registerTool(tool('a'), mcp('one'));
    index.registerTool(tool('a'), mcp('two'));
    index.unregisterBackend('github:a', mcp('two'));
    index.unregisterTool('github:a');
    index.registerTool(tool('b'), mcp('one'));
    index.removeNamespace('github');
    expect(events).toEqual([
      { type: 'registered', id: 'github:a', namespace: 'github', version: 1 },
      { type: 'updated', id: 'github:a', namespace: 'github', version: 2 },
      { type: 'backend_removed', id: 'github:a', namespace: 'github', version: 3 },
      { type: 'tool_removed', id: 'github:a', namespace: 'github', version: 4 },
      { type: 'registered', id: 'github:b', namespace: 'github', version: 5 },
      { type: 'namespace_removed', namespace: 'github', version: 6 },
    ]);
    expect(index.version).toBe(6);
  });

  it('delivers a batch only after all of it is registered', () => {
    const index = createIndex();
    const sizes: number[] = [];
    index.onChange(() => sizes.push(index.size));
    index.registerTools([
      { tool: tool('a'), backend: mcp('s') },
      { tool: tool('b'), backend: mcp('s') },
    ]);
    expect(sizes).toEqual([2, 2]);
  });

  it('keeps version order when a listener changes the index during delivery', () => {
    const index = createIndex();
    const first: number[] = [];
    const second: number[] = [];
    index.onChange((event) => {
      first.push(event.version);
      if (event.id === 'github:a') index.registerTool(tool('b'), mcp('s'));
    });
    index.onChange((event) => second.push(event.version));
    index.registerTool(tool('a'), mcp('s'));
    expect(first).toEqual([1, 2]);
    expect(second).toEqual([1, 2]);
  });

  it('isolates a throwing listener from the index and the other listeners', () => {
    const errors: unknown[] = [];
    const index = createIndex({ onListenerError: (error) => errors.push(error) });
    const seen: string[] = [];
    index.onChange(() => {
      throw new Error('listener bug');
    });
    index.onChange((event) => seen.push(event.type));
    expect(() => index.registerTool(tool('a'), mcp('s'))).not.toThrow();
    expect(index.hasTool('github:a')).toBe(true);
    expect(seen).toEqual(['registered']);
    expect(errors).toHaveLength(1);
  });

  it('stops delivering after unsubscribe, which is safe to call twice', () => {
    const index = createIndex();
    const seen: number[] = [];
    const off = index.onChange((event) => seen.push(event.version));
    index.registerTool(tool('a'), mcp('s'));
    off();
    off();
    index.registerTool(tool('b'), mcp('s'));
    expect(seen).toEqual([1]);
  });

  it('does not emit for a registration that changes nothing', () => {
    const index = createIndex();
    index.registerTool(tool('a'), mcp('s'));
    const seen: IndexChangeEvent[] = [];
    index.onChange((event) => seen.push(event));
    index.registerTool(tool('a'), mcp('s'));
    expect(seen).toEqual([]);
    expect(index.version).toBe(1);
  });
});
