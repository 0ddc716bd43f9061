import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHybridSearcher, createMemoryVectorCache } from './hybrid-searcher.js';
import { createOpenAiEmbedder } from './openai-embeddings.js';
import type { SearchDocument } from './searcher.js';

// A local server speaking the OpenAI embeddings wire format. Its "model" maps words to a few
// concepts, so a request can match a tool by meaning with no word in common.
const CONCEPTS: Record<string, number> = {
  refund: 0,
  compensate: 0,
  money: 0,
  message: 1,
  chat: 1,
  post: 1,
  weather: 2,
  forecast: 2,
  rain: 2,
};

function embedText(text: string): number[] {
  const vector = new Array<number>(4).fill(0);
  for (const word of text.toLowerCase().split(/[^a-z]+/)) {
    const concept = CONCEPTS[word];
    if (concept !== undefined) vector[concept] = (vector[concept] ?? 0) + 1;
  }
  vector[3] = 0.01; // never all zero
  return vector;
}

interface Seen {
  readonly inputs: string[];
  readonly model: string;
  readonly authorization: string | undefined;
}

let server: Server;
let base: string;
let seen: Seen[] = [];
let failNext: number[] = [];
let hold: Promise<void> | undefined;

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void (async () => {
      const body = JSON.parse(await readBody(request)) as { model: string; input: string[] };
      if (request.url !== '/v1/embeddings' || request.method !== 'POST') {
        response.writeHead(404).end();
        return;
      }
      const status = failNext.shift();
      if (status !== undefined) {
        response.writeHead(status, { 'retry-after': '0' }).end('try again');
        return;
      }
      await hold;
      seen.push({
        inputs: body.input,
        model: body.model,
        authorization: request.headers.authorization,
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          // Out of order on purpose: clients must sort by index.
          data: body.input
            .map((text, index) => ({ object: 'embedding', index, embedding: embedText(text) }))
            .reverse(),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

beforeEach(() => {
  seen = [];
  failNext = [];
  hold = undefined;
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
    failNext = [429];
    const vectors = await embed(['refund', 'chat', 'rain', 'money', 'post'], {});
    expect(vectors).toEqual(['refund', 'chat', 'rain', 'money', 'post'].map(embedText));
    expect(seen.map((request) => request.inputs.length)).toEqual([2, 2, 1]);
    expect(seen.every((request) => request.model === 'test-model')).toBe(true);
    expect(seen[0]?.authorization).toBe('Bearer sk-local');
  });

  it('fails with execution once the retries are spent, and at once on a 4xx', async () => {
    const embed = createOpenAiEmbedder({ url: base, model: 'm', retries: 1, retryDelayMs: 1 });
    failNext = [503, 503];
    await expect(embed(['x'], {})).rejects.toMatchObject({ code: 'execution' });
    failNext = [400];
    await expect(embed(['x'], {})).rejects.toMatchObject({ code: 'execution' });
    expect(seen).toEqual([]);
  });

  it('stops waiting when the signal aborts', async () => {
    const embed = createOpenAiEmbedder({ url: base, model: 'm', retryDelayMs: 10_000 });
    failNext = [503];
    const controller = new AbortController();
    const pending = embed(['x'], { signal: controller.signal });
    setTimeout(() => {
      controller.abort();
    }, 20);
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('rejects bad options', () => {
    expect(() => createOpenAiEmbedder({ url: 'not a url', model: 'm' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createOpenAiEmbedder({ url: base, model: 'm', batchSize: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

describe('hybrid search with endpoint embeddings', () => {
  it('stays lexical without waiting until vectors exist, then matches by meaning', async () => {
    let release = (): void => undefined;
    hold = new Promise<void>((resolve) => {
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
    expect(seen.flatMap((request) => request.inputs)).toHaveLength(3);
    seen = [];
    const second = make();
    for (const tool of TOOLS) second.upsert(tool);
    await second.warm();
    expect(seen).toEqual([]);
    const hits = await second.search({ text: 'compensate me', limit: 1 });
    expect(hits.map((hit) => hit.id)).toEqual(['billing:create_refund']);
    // Only the query was embedded.
    expect(seen.flatMap((request) => request.inputs)).toEqual(['compensate me']);
  });
});
