import { describe, expect, it } from 'vitest';
import type { Tool } from '@toolplane/toolmodel';
import { errorCodeOf, rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { createBm25Searcher } from './bm25-searcher.js';
import { createHybridSearcher, type EmbedFunction } from './hybrid-searcher.js';
import { createIndex } from './tool-index.js';

/** A tiny deterministic "embedding": one dimension per concept, synonyms share a dimension. */
const CONCEPTS: readonly (readonly string[])[] = [
  ['folder', 'directory', 'directories', 'folders'],
  ['repo', 'repository', 'repositories'],
  ['meeting', 'event', 'appointment'],
  ['create', 'make', 'new', 'add'],
  ['list', 'show', 'enumerate'],
  ['message', 'chat', 'post'],
];

function conceptEmbed(calls: string[][]): EmbedFunction {
  return (texts) => {
    calls.push([...texts]);
    return Promise.resolve(
      texts.map((text) => {
        const words = text.toLowerCase().split(/[^a-z]+/);
        return CONCEPTS.map((group) => words.filter((w) => group.includes(w)).length + 0.01);
      }),
    );
  };
}

const tool = (namespace: string, name: string, description: string): Tool => ({
  name,
  namespace,
  description,
  inputSchema: { type: 'object' },
});

function fill(index: ReturnType<typeof createIndex>): void {
  index.registerTools(
    [
      tool('fs', 'create_directory', 'Create a new directory on disk.'),
      tool('fs', 'list_directory', 'List the entries of a directory.'),
      tool('cal', 'create_event', 'Create a calendar event.'),
      tool('chat', 'post_message', 'Post a message to a channel.'),
    ].map((t) => ({ tool: t, backend: { kind: 'local', local: { name: t.name } } as const })),
  );
}

describe('createHybridSearcher', () => {
  it('finds a tool by a synonym that BM25 alone misses', async () => {
    // Without its synonym table, as a stand-in for words no table lists.
    const lexicalOnly = createIndex({ searcher: createBm25Searcher({ synonyms: [] }) });
    fill(lexicalOnly);
    expect((await lexicalOnly.search('make a folder')).results).toEqual([]);

    const index = createIndex({
      searcher: createHybridSearcher({
        embed: conceptEmbed([]),
        lexical: createBm25Searcher({ synonyms: [] }),
      }),
    });
    fill(index);
    const { results } = await index.search('make a folder');
    expect(results[0]?.id).toBe('fs:create_directory');
    expect((await index.search('schedule a meeting')).results[0]?.id).toBe('cal:create_event');
  });

  it('keeps the BM25 order when weight is 0, and embeds nothing', async () => {
    const calls: string[][] = [];
    const searcher = createHybridSearcher({ embed: conceptEmbed(calls), weight: 0 });
    const index = createIndex({ searcher });
    fill(index);
    const lexical = createIndex();
    fill(lexical);
    const ids = async (i: typeof index) =>
      (await i.search('directory entries')).results.map((r) => r.id);
    expect(await ids(index)).toEqual(await ids(lexical));
    expect(await ids(index)).toHaveLength(2);
    await searcher.warm();
    expect(calls).toEqual([]);
  });

  it('embeds each tool once, lazily, and again only when its text changes', async () => {
    const calls: string[][] = [];
    const searcher = createHybridSearcher({ embed: conceptEmbed(calls), batchSize: 3 });
    const index = createIndex({ searcher });
    fill(index);
    expect(calls).toEqual([]);
    await index.search('folder');
    const toolTexts = calls.slice(0, -1).flat();
    expect(toolTexts).toHaveLength(4);
    expect(calls[0]).toHaveLength(3);

    calls.length = 0;
    await index.search('event');
    expect(calls).toEqual([['event']]);

    index.registerTool(
      tool('fs', 'create_directory', 'Make a folder.'),
      { kind: 'mcp', mcp: { serverName: 'fs' } },
      { replace: true },
    );
    calls.length = 0;
    await searcher.warm();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[0]).toContain('Make a folder.');
  });

  it('goes on by words and reports to onError when embed fails or returns a wrong count', async () => {
    const lexical = createIndex();
    fill(lexical);
    const expected = (await lexical.search('folder')).results.map((r) => r.id);
    const embeds: [EmbedFunction, string][] = [
      [() => Promise.reject(new Error('model offline')), 'execution'],
      [() => Promise.resolve([[1]]), 'invalid_argument'],
    ];
    for (const [embed, code] of embeds) {
      const codes: string[] = [];
      const failing = createIndex({
        searcher: createHybridSearcher({ embed, onError: (error) => codes.push(error.code) }),
      });
      fill(failing);
      expect((await failing.search('folder')).results.map((r) => r.id)).toEqual(expected);
      expect(codes).toEqual([code]);
    }
  });

  it('throws cancelled when the signal aborts while embedding', async () => {
    const controller = new AbortController();
    const embed: EmbedFunction = (_texts, { signal }) =>
      new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => {
          reject(signal.reason as Error);
        });
        controller.abort();
      });
    const index = createIndex({ searcher: createHybridSearcher({ embed }) });
    fill(index);
    expect(await rejectionCodeOf(() => index.search('folder', { signal: controller.signal }))).toBe(
      'cancelled',
    );
  });

  it('throws cancelled when the signal aborts while the query is embedded', async () => {
    const controller = new AbortController();
    const tools = conceptEmbed([]);
    const embed: EmbedFunction = (texts, options) => {
      if (texts.length > 1) return tools(texts, options);
      controller.abort();
      return new Promise(() => undefined);
    };
    const index = createIndex({ searcher: createHybridSearcher({ embed }) });
    fill(index);
    expect(await rejectionCodeOf(() => index.search('folder', { signal: controller.signal }))).toBe(
      'cancelled',
    );
  });

  it('throws invalid_argument for a weight outside 0 to 1, a negative queryWaitMs or dimensions 0', () => {
    expect(errorCodeOf(() => createHybridSearcher({ embed: conceptEmbed([]), weight: 2 }))).toBe(
      'invalid_argument',
    );
    expect(
      errorCodeOf(() => createHybridSearcher({ embed: conceptEmbed([]), queryWaitMs: -1 })),
    ).toBe('invalid_argument');
    expect(
      errorCodeOf(() => createHybridSearcher({ embed: conceptEmbed([]), dimensions: 0 })),
    ).toBe('invalid_argument');
  });

  it('throws invalid_argument for an option it does not know (a cache under another name)', () => {
    expect(() =>
      createHybridSearcher({ embed: conceptEmbed([]), vectorCache: {} } as never),
    ).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: expect.stringMatching(
          /^createHybridSearcher: unknown option "vectorCache"; known options: embed, weight, lexical,/,
        ) as unknown,
      }),
    );
  });
});
