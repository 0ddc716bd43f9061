import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  fixtureCommand,
  startHttpFixture,
  startRecordingProxy,
  type HttpFixture,
  type RecordingProxy,
} from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, useTempDir, withoutStartProgress } from './testing/cli-process.js';
import { runInProcess } from './testing/in-process.js';

// What a one-shot command asks of a server, seen on the wire: `tools list` and `tools search`
// show tools alone, `prompts list` prompts, `resources list` resources, so a server's other
// lists (thousands of resources, for some servers) are not paged through before the answer.
const dir = useTempDir('one-shot-lists');
let fixture: HttpFixture;
let proxy: RecordingProxy;

beforeAll(async () => {
  fixture = await startHttpFixture({ server: fixtureCommand('http') });
  proxy = await startRecordingProxy({ url: fixture.url });
});

afterAll(async () => {
  await proxy.close();
  await fixture.close();
});

const OTHER_LISTS = ['prompts/list', 'resources/list', 'resources/templates/list'];
const LISTS = ['tools/list', ...OTHER_LISTS];
const listsIn = (methods: readonly string[]): string[] =>
  methods.filter((method) => LISTS.includes(method));

async function run(
  args: readonly string[],
  server: Record<string, unknown> = {},
): Promise<{ out: unknown; methods: string[] }> {
  const config = join(dir(), 'toolplane.config.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: { remote: { url: proxy.url.href, ...server } },
      store: 'memory',
    }),
  );
  const from = proxy.methods.length;
  const ran = await runInProcess([...args, '--json', '--config', config], { cwd: dir() });
  expect(withoutStartProgress(ran.stderr)).toBe('');
  expect(ran.code).toBe(0);
  return { out: json(ran), methods: proxy.methods.slice(from) };
}

describe('one-shot commands ask a server only for the lists they show', () => {
  it('tools list fetches the tools and nothing else', async () => {
    const { out, methods } = await run(['tools', 'list']);
    const ids = (out as { tools: { id: string }[] }).tools.map((tool) => tool.id);
    expect(ids).toContain('remote:echo');
    expect(methods).toContain('tools/list');
    expect(methods.filter((method) => OTHER_LISTS.includes(method))).toEqual([]);
  });

  it('tools search fetches the tools and nothing else', async () => {
    const { out, methods } = await run(['tools', 'search', 'echo', 'text']);
    const ids = (out as { results: { id: string }[] }).results.map((result) => result.id);
    expect(ids).toContain('remote:echo');
    expect(methods.filter((method) => OTHER_LISTS.includes(method))).toEqual([]);
  });

  it('prompts list fetches the prompts alone', async () => {
    const { out, methods } = await run(['prompts', 'list']);
    const ids = (out as { prompts: { id: string }[] }).prompts.map((prompt) => prompt.id);
    expect(ids).toContain('remote:echo');
    expect(listsIn(methods)).toEqual(['prompts/list']);
  });

  it('resources list and templates fetch the resources and their templates alone', async () => {
    for (const args of [
      ['resources', 'list'],
      ['resources', 'templates'],
    ]) {
      const { methods } = await run(args);
      expect(listsIn(methods).sort()).toEqual(['resources/list', 'resources/templates/list']);
    }
    const { out } = await run(['resources', 'list']);
    const uris = (out as { resources: { uri: string }[] }).resources.map((item) => item.uri);
    expect(uris).toContain('fixture://readme');
  });

  it('fetches the tools too when the config has tool filters to check', async () => {
    const { methods } = await run(['prompts', 'list'], { tools: { deny: ['fail'] } });
    expect(listsIn(methods).sort()).toEqual(['prompts/list', 'tools/list']);
  });
});
