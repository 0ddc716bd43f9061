import {
  conceptVector as embedText,
  embeddingsBody,
  startEmbeddingsServer,
  type EmbeddingsServer,
} from '@toolplane/fixtures';
import type { ToolErrorCode } from '@toolplane/toolmodel';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHybridSearcher } from './hybrid-searcher.js';
import { createOpenAiEmbedder } from './openai-embeddings.js';
import type { SearchDocument } from './searcher.js';
import { createMemoryVectorCache, type VectorCache } from './vector-cache.js';

// A local server speaking the OpenAI embeddings wire format, whose model maps words to concepts.
let server: EmbeddingsServer;
let base: string;

beforeAll(async () => {
  server = await startEmbeddingsServer();
  base = server.url;
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
  server.failNext.length = 0;
  server.hold = undefined;
  server.answer = undefined;
  server.onRequest = undefined;
});

function doc(id: string, description: string): SearchDocument {
  const [namespace, name] = id.split(':') as [string, string];
  return { id, name, namespace, title: undefined, description, tags: [] };
}

const TOOLS = [
  doc('billing:create_refund', 'Refund a charge.'),
  doc('chat:post_message', 'Post a message in a channel.'),
  doc('weather:get_forecast', 'Weather forecast for a city.'),
];

describe('createOpenAiEmbedder', () => {
  it('sends batches with the model and key, retries a 429, and keeps the order', async () => {
    const embed = createOpenAiEmbedder({
      url: base,
      model: 'test-model',
      apiKey: 'sk-local',
      batchSize: 2,
      retryDelayMs: 1,
    });
    server.failNext.push(429);
    const vectors = await embed(['refund', 'chat', 'rain', 'money', 'post'], {});
    expect(vectors).toEqual(['refund', 'chat', 'rain', 'money', 'post'].map(embedText));
    expect(server.requests.map((request) => request.inputs.length)).toEqual([2, 2, 1]);
    expect(server.requests.every((request) => request.model === 'test-model')).toBe(true);
    expect(server.requests[0]?.authorization).toBe('Bearer sk-local');
  });

  it('fails with execution once the retries are spent, and at once on a 4xx', async () => {
    const embed = createOpenAiEmbedder({ url: base, model: 'm', retries: 1, retryDelayMs: 1 });
    server.failNext.push(503, 503);
    await expect(embed(['x'], {})).rejects.toMatchObject({ code: 'execution' });
    server.failNext.push(400);
    await expect(embed(['x'], {})).rejects.toMatchObject({ code: 'execution' });
    expect(server.requests).toEqual([]);
  });

  it('stops waiting when the signal aborts', async () => {
    const embed = createOpenAiEmbedder({ url: base, model: 'm', retryDelayMs: 10_000 });
    server.failNext.push(503);
    const controller = new AbortController();
    const pending = embed(['x'], { signal: controller.signal });
    setTimeout(() => {
      controller.abort();
    }, 20);
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('fails with execution, the parse error as cause, when the body is not JSON', async () => {
    const embed = createOpenAiEmbedder({ url: base, model: 'm' });
    server.answer = () => ({ body: '{"object":"list","data":[{' });
    const error = await embed(['x'], {}).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toMatchObject({ code: 'execution' });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it.each([
    ['one vector too few', (inputs: string[]) => inputs.slice(1).map(embedText)],
    ['no numbers', (inputs: string[]) => inputs.map(() => [null, 1])],
    ['vectors of two lengths', (inputs: string[]) => inputs.map((_, i) => [1, ...(i ? [2] : [])])],
    ['a vector of another length than dimensions', (inputs: string[]) => inputs.map(() => [1])],
  ])('fails with execution when the endpoint returns %s', async (_, vectors) => {
    const embed = createOpenAiEmbedder({ url: base, model: 'm', dimensions: 2 });
    server.answer = ({ inputs, model }) => ({ body: embeddingsBody(model, vectors(inputs)) });
    await expect(embed(['x', 'y'], {})).rejects.toMatchObject({ code: 'execution' });
  });

  it.each(['sends no answer', 'stalls after the headers'])(
    'fails with timeout when the endpoint %s, then asks afresh',
    async (how) => {
      // Long enough for the answered request after it on most loaded machines (50 ms was not).
      const embed = createOpenAiEmbedder({ url: base, model: 'm', timeoutMs: 500 });
      let release = (): void => undefined;
      if (how === 'sends no answer') {
        server.hold = new Promise<void>((resolve) => {
          release = resolve;
        });
      } else server.answer = () => ({ stall: true });
      await expect(embed(['rain'], {})).rejects.toMatchObject({ code: 'timeout' });
      // The endpoint recovers: the next call is a new request, answered.
      server.hold = undefined;
      server.answer = undefined;
      release();
      // A loaded machine may still pass the 500 ms: the endpoint is asked again until it answers.
      await vi.waitFor(
        async () => {
          expect(await embed(['rain'], {})).toEqual([embedText('rain')]);
        },
        { timeout: 10_000, interval: 0 },
      );
    },
  );

  it('appends /embeddings to the path and keeps the query string', async () => {
    const embed = createOpenAiEmbedder({ url: `${base}/?api-version=2024-02-01`, model: 'm' });
    expect(await embed(['rain'], {})).toEqual([embedText('rain')]);
    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1/embeddings?api-version=2024-02-01',
    ]);
  });

  it('fails with rate_limited, asking nothing, when its turn is further away than maxWaitMs', async () => {
    const embed = createOpenAiEmbedder({ url: base, model: 'm', requestsPerMinute: 1 });
    await embed(['rain'], {});
    await expect(embed(['money'], { maxWaitMs: 1000 })).rejects.toMatchObject({
      code: 'rate_limited',
    });
    expect(server.requests.flatMap((request) => request.inputs)).toEqual(['rain']);
  });

  it('rejects bad options', () => {
    expect(() => createOpenAiEmbedder({ url: 'not a url', model: 'm' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createOpenAiEmbedder({ url: base, model: 'm', batchSize: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createOpenAiEmbedder({ url: base, model: 'm', timeoutMs: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    // A timer set past 2^31 - 1 ms fires at once: every request would time out.
    expect(() => createOpenAiEmbedder({ url: base, model: 'm', timeoutMs: 2 ** 31 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createOpenAiEmbedder({ url: base, model: 'm', retryDelayMs: Number.NaN })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    // Without a word, the key was left out: every request went unauthenticated.
    expect(() => createOpenAiEmbedder({ url: base, model: 'm', api_key: 'sk-x' } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: 'createOpenAiEmbedder: unknown option "api_key"; did you mean "apiKey"?',
      }),
    );
  });
});

describe('hybrid search with endpoint embeddings', () => {
  it('stays lexical without waiting until vectors exist, then matches by meaning', async () => {
    let release = (): void => undefined;
    server.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const searcher = createHybridSearcher({
      embed: createOpenAiEmbedder({ url: base, model: 'm' }),
      background: true,
      weight: 0.7,
    });
    for (const tool of TOOLS) searcher.upsert(tool);
    // The endpoint holds every answer: a search must not wait for it.
    expect(await searcher.search({ text: 'compensate me', limit: 3 })).toEqual([]);
    const lexical = await searcher.search({ text: 'post a message', limit: 1 });
    expect(lexical.map((hit) => hit.id)).toEqual(['chat:post_message']);
    release();
    await searcher.warm();
    const semantic = await searcher.search({ text: 'compensate me', limit: 1 });
    expect(semantic.map((hit) => hit.id)).toEqual(['billing:create_refund']);
  });

  it.each([
    ['HTTP 500', () => server.failNext.push(500)],
    ['HTTP 429', () => server.failNext.push(429)],
    ['HTTP 400', () => server.failNext.push(400)],
    ['a body that is not JSON', () => (server.answer = () => ({ body: '{"data":[{' }))],
    [
      'a vector too many',
      () =>
        (server.answer = ({ model, inputs }) => ({
          body: embeddingsBody(model, [...inputs, 'rain'].map(embedText)),
        })),
    ],
    ['NaN', () => (server.answer = ({ model }) => ({ body: embeddingsBody(model, [[NaN]]) }))],
  ])('goes on by words, telling onError, when the endpoint answers %s', async (_, fail) => {
    const codes: ToolErrorCode[] = [];
    const searcher = createHybridSearcher({
      embed: createOpenAiEmbedder({ url: base, model: 'm', retries: 0 }),
      background: true,
      onError: (error) => codes.push(error.code),
    });
    for (const tool of TOOLS) searcher.upsert(tool);
    await searcher.warm();
    fail();
    const hits = await searcher.search({ text: 'post a message', limit: 3 });
    expect(hits.map((hit) => hit.id)).toEqual(['chat:post_message']);
    expect(codes).toEqual(['execution']);
  });

  /** A searcher over TOOLS whose vectors all exist, and the codes told to its onError. */
  async function warmed(
    options: { queryWaitMs?: number; timeoutMs?: number; requestsPerMinute?: number } = {},
  ) {
    const codes: ToolErrorCode[] = [];
    const { queryWaitMs, ...embedder } = options;
    const searcher = createHybridSearcher({
      embed: createOpenAiEmbedder({ url: base, model: 'm', ...embedder }),
      background: true,
      ...(queryWaitMs === undefined ? {} : { queryWaitMs }),
      onError: (error) => codes.push(error.code),
    });
    for (const tool of TOOLS) searcher.upsert(tool);
    // On a loaded machine a warming request may pass a short `timeoutMs`: warm again until every
    // tool has its vector (warm embeds only what is missing), then forget what that told onError.
    await vi.waitFor(() => searcher.warm(), { timeout: 10_000, interval: 0 });
    codes.length = 0;
    server.requests.length = 0;
    const ids = async (text: string) =>
      (await searcher.search({ text, limit: 1 })).map((hit) => hit.id);
    return { codes, ids };
  }

  it('goes on by words when the query has no vector in time, and asks afresh later', async () => {
    // Turns 1 ms apart: only the hold keeps the query's vector away.
    const { codes, ids } = await warmed({
      queryWaitMs: 20,
      timeoutMs: 200,
      requestsPerMinute: 60_000,
    });
    let release = (): void => undefined;
    server.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    expect(await ids('post a message')).toEqual(['chat:post_message']);
    // The search's own wait gave up first (on a loaded machine the request's 200 ms may already
    // have passed too by the time the search answers).
    expect(codes[0]).toBe('timeout');
    // The request it stopped waiting for times out on its own, and says so.
    await vi.waitFor(
      () => {
        expect(codes).toEqual(['timeout', 'timeout']);
      },
      { timeout: 10_000 },
    );
    server.hold = undefined;
    release();
    // Asked afresh: a later search has the query's vector (the first may still give up on its
    // 20 ms on a loaded machine, and go on by words; the vector it asked for is kept).
    await vi.waitFor(
      async () => {
        expect(await ids('compensate me')).toEqual(['billing:create_refund']);
      },
      { timeout: 10_000 },
    );
  });

  it('embeds a query once however many searches ask it, and keeps its vector', async () => {
    const { codes, ids } = await warmed();
    const flood = await Promise.all(Array.from({ length: 20 }, () => ids('compensate me')));
    expect(new Set(flood.flat())).toEqual(new Set(['billing:create_refund']));
    expect(await ids('compensate me')).toEqual(['billing:create_refund']);
    expect(server.requests.map((request) => request.inputs)).toEqual([['compensate me']]);
    expect(codes).toEqual([]);
  });

  it('goes on by words rather than queue behind the rate limit', async () => {
    // One request a minute: the warm took this minute's.
    const { codes, ids } = await warmed({ requestsPerMinute: 1 });
    expect(await ids('post a message')).toEqual(['chat:post_message']);
    expect(codes).toEqual(['rate_limited']);
    expect(server.requests).toEqual([]);
  });

  /** A memory cache that counts the vectors put in it. */
  function countingCache(): VectorCache & { readonly puts: number[] } {
    const inner = createMemoryVectorCache();
    const puts: number[] = [];
    return {
      puts,
      get: (prints) => inner.get(prints),
      put: (entries) => {
        puts.push(entries.length);
        return inner.put(entries);
      },
    };
  }

  const short = () =>
    (server.answer = ({ model, inputs }) => ({
      body: embeddingsBody(
        model,
        inputs.map((input) => embedText(input).slice(0, 5)),
      ),
    }));

  it('refuses vectors of another length than dimensions, and caches none of them', async () => {
    const cache = countingCache();
    const make = () =>
      createHybridSearcher({
        embed: createOpenAiEmbedder({ url: base, model: 'm' }),
        cache,
        dimensions: 6,
      });
    const first = make();
    for (const tool of TOOLS) first.upsert(tool);
    short();
    await expect(first.warm()).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(cache.puts).toEqual([]);
    // Fixed, the endpoint is asked for every tool: nothing wrong was kept.
    server.answer = undefined;
    server.requests.length = 0;
    const second = make();
    for (const tool of TOOLS) second.upsert(tool);
    await second.warm();
    expect(server.requests.flatMap((request) => request.inputs)).toHaveLength(3);
    expect((await second.search({ text: 'compensate me', limit: 1 }))[0]?.id).toBe(
      'billing:create_refund',
    );
  });

  it.each([
    ['with dimensions', { dimensions: 6 }],
    ['without', {}],
  ])(
    'embeds again cached vectors of another length than the model gives now (%s)',
    async (_, dimensions) => {
      const cache = createMemoryVectorCache();
      const make = (more: { dimensions?: number } = {}) => {
        const searcher = createHybridSearcher({
          embed: createOpenAiEmbedder({ url: base, model: 'm' }),
          cache,
          background: true,
          ...more,
        });
        for (const tool of TOOLS) searcher.upsert(tool);
        return searcher;
      };
      // Cached while the endpoint gave vectors of length 5.
      short();
      await make().warm();
      server.answer = undefined;
      const searcher = make(dimensions);
      await searcher.warm();
      // Lexical at worst while the tools are embedded again, never failing.
      expect((await searcher.search({ text: 'post a message', limit: 1 }))[0]?.id).toBe(
        'chat:post_message',
      );
      await searcher.warm();
      expect((await searcher.search({ text: 'compensate me', limit: 1 }))[0]?.id).toBe(
        'billing:create_refund',
      );
      // What was embedded again replaced what was cached: a new instance asks only its query.
      server.requests.length = 0;
      const next = make(dimensions);
      await next.warm();
      expect((await next.search({ text: 'compensate me', limit: 1 }))[0]?.id).toBe(
        'billing:create_refund',
      );
      expect(server.requests.flatMap((request) => request.inputs)).toEqual(['compensate me']);
    },
  );

  it('embeds nothing twice across instances sharing a vector cache', async () => {
    const cache = createMemoryVectorCache();
    const make = () =>
      createHybridSearcher({
        embed: createOpenAiEmbedder({ url: base, model: 'm' }),
        cache,
        cacheKey: 'm',
      });
    const first = make();
    for (const tool of TOOLS) first.upsert(tool);
    await first.warm();
    expect(server.requests.flatMap((request) => request.inputs)).toHaveLength(3);
    server.requests.length = 0;
    const second = make();
    for (const tool of TOOLS) second.upsert(tool);
    await second.warm();
    expect(server.requests).toEqual([]);
    const hits = await second.search({ text: 'compensate me', limit: 1 });
    expect(hits.map((hit) => hit.id)).toEqual(['billing:create_refund']);
    // Only the query was embedded.
    expect(server.requests.flatMap((request) => request.inputs)).toEqual(['compensate me']);
  });
});
