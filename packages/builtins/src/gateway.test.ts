import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl, SERVE_HTTP, startCli, stop } from './testing/cli-process.js';

// The hostile expressions of the report: 10^8 and 10^7 values built from ten.
const TEN = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const explode = (levels: number): string =>
  `length([]${'.[@,@,@,@,@,@,@,@,@,@][]'.repeat(levels)})`;

let dir: string;
let gateway: ChildProcess;
let url: URL;
const clients: Client[] = [];

async function connect(): Promise<Client> {
  const client = new Client({ name: 'builtins-gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  return client;
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/**
 * Calls `name` on one session and, while that call runs, pings and lists on another: resolves
 * with the call's result and whether the other session was answered before the call ended.
 */
async function callWhileOthersWork(
  heavy: Client,
  other: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ result: CallToolResult; othersFirst: boolean }> {
  let finished = false;
  const call = heavy.callTool({ name, arguments: args }, { timeout: 60_000 });
  const watched = call.then((result) => {
    finished = true;
    return result;
  });
  await other.ping();
  const { tools } = await other.listTools();
  expect(tools.length).toBeGreaterThan(0);
  const othersFirst = !finished;
  return { result: await watched, othersFirst };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolplane-builtins-'));
  await writeFile(join(dir, 'toolplane.config.yaml'), 'store: memory\n');
  gateway = startCli([...SERVE_HTTP], { cwd: dir });
  url = await listeningUrl(gateway);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stop(gateway, 'SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

describe('CPU-heavy builtins behind the CLI gateway', () => {
  it('answers the 10^8-value json_query with a clear error while other sessions are served', async () => {
    const [heavy, other] = [await connect(), await connect()];
    const { result, othersFirst } = await callWhileOthersWork(heavy, other, 'builtin__json_query', {
      expression: explode(8),
      data: TEN,
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/more than 256 MB of memory|longer than 5 s/);
    expect(othersFirst).toBe(true);
  });

  it('answers the 10^7-value json_query (result or clear error) while other sessions are served', async () => {
    const [heavy, other] = [await connect(), await connect()];
    const { result, othersFirst } = await callWhileOthersWork(heavy, other, 'builtin__json_query', {
      expression: explode(7),
      data: TEN,
    });
    if (result.isError === true) expect(text(result)).toMatch(/memory|longer than 5 s/);
    else expect(result.structuredContent).toEqual({ result: 10_000_000 });
    expect(othersFirst).toBe(true);
  });

  it('counts 80k characters of text_stats off the loop, and refuses 4M with the limit named', async () => {
    const [heavy, other] = [await connect(), await connect()];
    // 80,004 characters.
    const sentences = 6_667;
    const eighty = 'Some words. '.repeat(sentences);
    const { result, othersFirst } = await callWhileOthersWork(heavy, other, 'builtin__text_stats', {
      text: eighty,
    });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toMatchObject({ words: sentences * 2, sentences });
    expect(othersFirst).toBe(true);

    const huge = await heavy.callTool({
      name: 'builtin__text_stats',
      arguments: { text: 'a'.repeat(4_000_000) },
    });
    expect(huge.isError).toBe(true);
    expect(text(huge)).toMatch(/text must NOT have more than 1000000 characters/);
  });
});
