import { describe, expect, it } from 'vitest';
import type { Tool, ToolBackend } from '@toolplane/toolmodel';
import { errorMessageOf } from '@toolplane/toolmodel/testing';
import type { ListToolsOptions, SearchOptions } from './index-types.js';
import { createIndex } from './tool-index.js';

const backend: ToolBackend = { kind: 'mcp', mcp: { serverName: 'files' } };
const tool = (name: string): Tool => ({
  name,
  namespace: 'files',
  description: `${name.replace('_', ' ')} on disk`,
  inputSchema: { type: 'object' },
});

/** What plain JavaScript hands a method, past its type. */
const untyped = (options: object) => options as never;

/** The message a promise rejects with (it must reject, not throw). */
async function rejection(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught as { code?: string; message?: string },
  );
  expect(error?.code).toBe('invalid_argument');
  return error?.message ?? '';
}

describe('the options of an index method', () => {
  it('refuses a misspelled key, naming the one meant, and changes nothing', async () => {
    const index = createIndex();
    index.registerTool(tool('read_file'), backend);
    const changed = { ...tool('read_file'), description: 'Reads a file.' };
    expect(
      errorMessageOf(
        () => index.registerTool(changed, backend, untyped({ replce: true })),
        'invalid_argument',
      ),
    ).toBe('registerTool: unknown option "replce"; did you mean "replace"?');
    expect(index.getTool('files:read_file').tool.description).toBe('read file on disk');
    expect(
      errorMessageOf(
        () => index.registerTools([{ tool: tool('list_dir'), backend }], untyped({ force: true })),
        'invalid_argument',
      ),
    ).toBe('registerTools: unknown option "force"; known options: replace');
    expect(
      errorMessageOf(
        () => index.registerMcpTools('files', [], untyped({ namepsace: 'fs' })),
        'invalid_argument',
      ),
    ).toBe('registerMcpTools: unknown option "namepsace"; did you mean "namespace"?');
    expect(index.size).toBe(1);
    expect(errorMessageOf(() => index.listTools(untyped({ limt: 5 })), 'invalid_argument')).toBe(
      'listTools: unknown option "limt"; did you mean "limit"?',
    );
    expect(
      errorMessageOf(
        () => index.listNamespaces(untyped({ namespace: 'files' })),
        'invalid_argument',
      ),
    ).toBe('listNamespaces: unknown option "namespace"; known options: cursor, limit');
    expect(await rejection(() => index.search('read', untyped({ tag: ['files'] })))).toBe(
      'search: unknown option "tag"; did you mean "tags"?',
    );
    expect(await rejection(() => index.search('read', untyped([])))).toBe(
      'search: options must be an object, got an array',
    );
  });

  it('takes every key of each method, and reads no inherited one', async () => {
    const index = createIndex();
    index.registerTool(tool('read_file'), backend, { replace: false });
    index.registerTools([{ tool: tool('list_dir'), backend }], { replace: true });
    index.registerMcpTools('other', [{ name: 'ping', inputSchema: { type: 'object' } }], {
      namespace: 'other',
      tags: ['net'],
      replace: true,
      prune: true,
    });
    const list: Required<Omit<ListToolsOptions, 'cursor'>> = {
      limit: 5,
      namespace: 'files',
      tags: [],
    };
    expect(index.listTools(list).entries.map((entry) => entry.id)).toEqual([
      'files:list_dir',
      'files:read_file',
    ]);
    const search: SearchOptions = { ...list, signal: new AbortController().signal };
    expect((await index.search('read file', search)).results[0]?.id).toBe('files:read_file');
    const inherited = Object.create({ limt: 1 }) as ListToolsOptions;
    expect(index.listTools(inherited).entries).toHaveLength(3);
    expect(index.listNamespaces({ limit: 1 }).namespaces).toHaveLength(1);
  });
});
