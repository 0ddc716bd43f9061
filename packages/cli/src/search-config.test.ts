import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  conceptVector,
  embeddingsBody,
  startEmbeddingsServer,
  type EmbeddingsServer,
} from '@toolplane/fixtures';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  binCommand,
  json,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
} from './testing/cli-process.js';
import { storeFamily } from './stores/store-family.js';
import { runInProcess } from './testing/in-process.js';

// The config's `search` section end to end: embeddings from a local OpenAI-compatible endpoint
// (vectors kept in the SQLite store), and learning from use through a served gateway (evidence
// kept in the same file, surviving a restart, dropped by `toolplane search forget`).

const tempDir = useTempDir('search-config');
let embeddings: EmbeddingsServer;

beforeAll(async () => {
  embeddings = await startEmbeddingsServer();
});

afterAll(async () => {
  await embeddings.close();
});

beforeEach(() => {
  embeddings.requests.length = 0;
  embeddings.failNext.length = 0;
  embeddings.hold = undefined;
  embeddings.answer = undefined;
});

async function writeConfig(name: string, config: Record<string, unknown>): Promise<string> {
  const file = join(tempDir(), name);
  await writeFile(file, JSON.stringify(config));
  return file;
}

const search = (config: string, query: string) =>
  runInProcess(['--config', config, 'tools', 'search', query, '--json', '--limit', '3'], {
    cwd: tempDir(),
    env: { EMBED_KEY: 'sk-embed-secret' },
  });

describe('search.embeddings', () => {
  it('finds a tool by meaning, embedding each tool once into the SQLite store', async () => {
    const config = await writeConfig('embed.json', {
      store: { sqlite: 'embed.db' },
      search: {
        learn: false,
        embeddings: { url: embeddings.url, model: 'concepts', apiKey: '${EMBED_KEY}' },
      },
    });
    // No builtin's text has "clock"; the endpoint's model puts it next to time.
    const first = await search(config, 'clock');
    expect(first.code).toBe(0);
    expect(json(first).results[0].id).toBe('builtin:time_now');
    expect(embeddings.requests[0]?.authorization).toBe('Bearer sk-embed-secret');
    expect(embeddings.requests.flatMap((r) => r.inputs)).toHaveLength(6 + 1);
    expect(first.stdout + first.stderr).not.toContain('sk-embed-secret');

    // A second process on the same file embeds only its query.
    embeddings.requests.length = 0;
    const second = await search(config, 'clock');
    expect(json(second).results[0].id).toBe('builtin:time_now');
    expect(embeddings.requests.flatMap((r) => r.inputs)).toEqual(['clock']);

    // Another model's vectors are its own.
    embeddings.requests.length = 0;
    const other = await writeConfig('embed-other.json', {
      store: { sqlite: 'embed.db' },
      search: { learn: false, embeddings: { url: embeddings.url, model: 'other' } },
    });
    expect((await search(other, 'clock')).code).toBe(0);
    expect(embeddings.requests.flatMap((r) => r.inputs)).toHaveLength(6 + 1);
  });

  it('searches lexically, saying why, when the endpoint refuses', async () => {
    const config = await writeConfig('refused.json', {
      store: 'memory',
      search: { learn: false, embeddings: { url: embeddings.url, model: 'concepts' } },
    });
    embeddings.failNext.push(401);
    const ran = await search(config, 'time zone');
    expect(ran.code).toBe(0);
    expect(json(ran).results[0].id).toBe('builtin:time_now');
    expect(ran.stderr).toMatch(/warning search: .*401/);
  });

  it('searches by words, saying why, when the endpoint fails once vectors exist', async () => {
    const config = await writeConfig('fails-later.json', {
      store: { sqlite: 'fails-later.db' },
      search: { learn: false, embeddings: { url: embeddings.url, model: 'concepts' } },
    });
    expect((await search(config, 'clock')).code).toBe(0);
    // Every vector is in the store; now the endpoint fails the query, retries included.
    embeddings.failNext.push(500, 500, 500, 500);
    const ran = await search(config, 'time zone');
    expect(ran.code).toBe(0);
    expect(json(ran).results[0].id).toBe('builtin:time_now');
    expect(ran.stderr).toMatch(/warning search: /);
  });

  it('searches by words, saying why, when the endpoint hangs past timeoutMs', async () => {
    const config = await writeConfig('hangs.json', {
      store: 'memory',
      search: {
        learn: false,
        embeddings: { url: embeddings.url, model: 'concepts', timeoutMs: 100 },
      },
    });
    let release = (): void => undefined;
    embeddings.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const ran = await search(config, 'time zone');
      expect(ran.code).toBe(0);
      expect(json(ran).results[0].id).toBe('builtin:time_now');
      expect(ran.stderr).toMatch(/warning search: /);
    } finally {
      release();
    }
  });

  it('searches by words when the endpoint ignores dimensions, and by meaning once fixed', async () => {
    const config = await writeConfig('dimensions.json', {
      store: { sqlite: 'dimensions.db' },
      search: {
        learn: false,
        embeddings: { url: embeddings.url, model: 'concepts', dimensions: 6 },
      },
    });
    embeddings.answer = ({ model, inputs }) => ({
      body: embeddingsBody(
        model,
        inputs.map((input) => conceptVector(input).slice(0, 5)),
      ),
    });
    const wrong = await search(config, 'clock');
    expect(wrong.code).toBe(0);
    expect(wrong.stderr).toMatch(/warning search: /);
    embeddings.answer = undefined;
    // No builtin's text has "clock": found by meaning, nothing of the wrong answers in the way.
    const fixed = await search(config, 'clock');
    expect(fixed.code).toBe(0);
    expect(json(fixed).results[0].id).toBe('builtin:time_now');
  });

  it('names the keys of the section when one is misspelt', async () => {
    const config = await writeConfig('typo.json', {
      search: { embeddings: { url: embeddings.url, modle: 'concepts' } },
    });
    const ran = await search(config, 'clock');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/search\.embeddings.*"modle".*did you mean "model"/s);
  });
});

describe('search forget', () => {
  it('counts what it forgot in words, and refuses an empty tool as a usage error', async () => {
    const config = await writeConfig('forget.json', { store: { sqlite: 'forget.db' } });
    const evidence = await storeFamily({
      kind: 'sqlite',
      path: join(tempDir(), 'forget.db'),
    }).evidenceStore();
    const updatedAt = Date.now();
    await evidence.save(
      ['date', 'today'].map((term) => ({ toolId: 'builtin:time_now', term, weight: 1, updatedAt })),
    );
    await evidence.close?.();
    const forget = (...tool: string[]) =>
      runInProcess(['--config', config, 'search', 'forget', ...tool], { cwd: tempDir() });
    expect((await forget('')).code).toBe(2);
    const all = await forget();
    expect(all.code).toBe(0);
    expect(all.stdout + all.stderr).toMatch(/forgot 2 learned terms of 1 tool$/m);
  });
});

describe('search.learn', () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) await stop(child, 'SIGTERM');
  });

  async function serve(config: string): Promise<{ url: URL; child: ChildProcess }> {
    const child = startCli([...SERVE_HTTP, '--config', config], {
      command: binCommand,
      cwd: tempDir(),
    });
    children.push(child);
    return { url: await listeningUrl(child), child };
  }

  async function session<T>(url: URL, work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name: 'search-learn-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  }

  const ranked = (client: Client, query: string) =>
    client
      .callTool({ name: 'search_tools', arguments: { query, limit: 6 } })
      .then((r) => (r.structuredContent as { results: { id: string }[] }).results.map((x) => x.id));

  it('ranks higher what sessions called after a search, across a restart, until forgotten', async () => {
    const config = await writeConfig('learn.json', {
      mode: 'search',
      store: { sqlite: 'learn.db' },
    });
    // Its words fit date_add and date_diff best, but people asking it want today's date.
    const query = 'what is the date';
    let { url, child } = await serve(config);
    const before = await session(url, (client) => ranked(client, query));
    expect(before).toContain('builtin:time_now');
    expect(before[0]).not.toBe('builtin:time_now');

    // Two sessions search, then call time_now from what they were shown.
    for (let i = 0; i < 2; i++) {
      await session(url, async (client) => {
        await ranked(client, query);
        await client.callTool({
          name: 'call_tool',
          arguments: { id: 'builtin:time_now', arguments: {} },
        });
      });
    }
    const learned = await session(url, (client) => ranked(client, query));
    expect(learned[0]).toBe('builtin:time_now');

    // The evidence is in the store: a new process ranks the same.
    await stop(child, 'SIGTERM');
    ({ url, child } = await serve(config));
    expect((await session(url, (client) => ranked(client, query)))[0]).toBe('builtin:time_now');
    await stop(child, 'SIGTERM');

    const typo = await runInProcess(['--config', config, 'search', 'forget', 'builtin:time_nwo'], {
      cwd: tempDir(),
    });
    expect(typo.code).toBe(3);
    expect(typo.stderr).toMatch(/did you mean "builtin:time_now"/);
    const forgot = await runInProcess(
      ['--config', config, 'search', 'forget', 'builtin__time_now'],
      {
        cwd: tempDir(),
      },
    );
    expect(forgot.code).toBe(0);
    expect(forgot.stdout + forgot.stderr).toMatch(/forgot \d+ learned terms? of builtin:time_now/);
    ({ url } = await serve(config));
    expect(await session(url, (client) => ranked(client, query))).toEqual(before);
  }, 60_000);

  it('drops what a running gateway learned when `search forget` runs beside it, for good', async () => {
    const config = await writeConfig('forget-live.json', {
      mode: 'search',
      store: { sqlite: 'forget-live.db' },
    });
    const query = 'what is the date';
    const { url } = await serve(config);
    const before = await session(url, (client) => ranked(client, query));
    const learn = () =>
      session(url, async (client) => {
        await ranked(client, query);
        await client.callTool({
          name: 'call_tool',
          arguments: { id: 'builtin:time_now', arguments: {} },
        });
      });
    for (let i = 0; i < 3; i++) await learn();
    expect((await session(url, (client) => ranked(client, query)))[0]).toBe('builtin:time_now');

    const forgot = await runInProcess(['--config', config, 'search', 'forget'], {
      cwd: tempDir(),
    });
    expect(forgot.code).toBe(0);
    // The running gateway hears it from the file: its ranking is search's own again.
    await vi.waitFor(
      async () => {
        expect(await session(url, (client) => ranked(client, query))).toEqual(before);
      },
      { timeout: 10_000, interval: 200 },
    );
    // Its next learned use is one observation: the three forgotten are not written back.
    await learn();
    const evidence = await storeFamily({
      kind: 'sqlite',
      path: join(tempDir(), 'forget-live.db'),
    }).evidenceStore();
    try {
      await vi.waitFor(async () => {
        expect((await evidence.load()).length).toBeGreaterThan(0);
      });
      const weights = (await evidence.load()).map((row) => Math.round(row.weight * 1000) / 1000);
      expect(weights).toEqual(weights.map(() => 1));
    } finally {
      await evidence.close?.();
    }
  }, 60_000);
});
