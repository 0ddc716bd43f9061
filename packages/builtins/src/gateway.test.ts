import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { serveHttp } from '@toolplane/gateway';
import { createToolkit } from '@toolplane/toolkit';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinTools, type BuiltinToolList } from './builtins.js';

// The hostile expressions of the report: 10^8 and 10^7 values built from ten.
const TEN = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const explode = (levels: number): string =>
  `length([]${'.[@,@,@,@,@,@,@,@,@,@][]'.repeat(levels)})`;

/** A gateway serving the builtins, its tasks bounded at `timeoutS` seconds. */
interface Served {
  readonly url: URL;
  close(): Promise<void>;
}

const served = new Map<number, Promise<Served>>();
const clients: Client[] = [];

async function serve(timeoutS: number): Promise<Served> {
  const tools: BuiltinToolList = builtinTools({ pool: { timeoutMs: timeoutS * 1000 } });
  const toolkit = createToolkit({ tools });
  const gateway = await serveHttp(toolkit, { port: 0 });
  return {
    url: gateway.url,
    close: async () => {
      await gateway.close();
      await toolkit.close();
      await tools.close();
    },
  };
}

/** A client of the gateway whose tasks are bounded at `timeoutS` seconds, started on first use. */
async function connect(timeoutS: number): Promise<Client> {
  let gateway = served.get(timeoutS);
  if (gateway === undefined) {
    gateway = serve(timeoutS);
    served.set(timeoutS, gateway);
  }
  const client = new Client({ name: 'builtins-gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport((await gateway).url));
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

// The hostile expressions run on a gateway whose tasks are bounded at 2 s, not the default 5 s:
// each runs its thread to the bound, and at 5 s they took ~10 s of a core from the rest of the
// test run. What is proven is the same: a clear error, and other sessions served meanwhile. The
// tests whose victims need a thread of their own keep the default: under load, a new thread's
// start can take seconds.
const TIMEOUT_S = 2;
const DEFAULT_TIMEOUT_S = 5;

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([...served.values()].map(async (gateway) => (await gateway).close()));
});

describe('CPU-heavy builtins behind a gateway', () => {
  it('answers the 10^8-value json_query with a clear error while other sessions are served', async () => {
    const [heavy, other] = [await connect(TIMEOUT_S), await connect(TIMEOUT_S)];
    const { result, othersFirst } = await callWhileOthersWork(heavy, other, 'builtin__json_query', {
      expression: explode(8),
      data: TEN,
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      new RegExp(`more than 256 MB of memory|longer than ${String(TIMEOUT_S)} s`),
    );
    expect(othersFirst).toBe(true);
  });

  it('answers the 10^7-value json_query (result or clear error) while other sessions are served', async () => {
    const [heavy, other] = [await connect(TIMEOUT_S), await connect(TIMEOUT_S)];
    const { result, othersFirst } = await callWhileOthersWork(heavy, other, 'builtin__json_query', {
      expression: explode(7),
      data: TEN,
    });
    if (result.isError === true) {
      expect(text(result)).toMatch(new RegExp(`memory|longer than ${String(TIMEOUT_S)} s`));
    } else expect(result.structuredContent).toEqual({ result: 10_000_000 });
    expect(othersFirst).toBe(true);
  });

  it('counts 80k characters of text_stats off the loop, and refuses 4M with the limit named', async () => {
    const [heavy, other] = [await connect(DEFAULT_TIMEOUT_S), await connect(DEFAULT_TIMEOUT_S)];
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
    expect(text(huge)).toMatch(/1000000/);
  });

  it("answers one session's json_query while another keeps text_stats busy on every share it has", async () => {
    const [hog, victim] = [await connect(DEFAULT_TIMEOUT_S), await connect(DEFAULT_TIMEOUT_S)];
    const big = { text: 'Some words here. '.repeat(58_823) };
    // Cancelled once the victim is answered: each would otherwise hold its thread to the bound.
    const stop = new AbortController();
    const hogging = [1, 2, 3].map(() =>
      hog.callTool(
        { name: 'builtin__text_stats', arguments: big },
        { timeout: 60_000, signal: stop.signal },
      ),
    );
    for (let i = 0; i < 3; i++) {
      const answer = await victim.callTool({
        name: 'builtin__json_query',
        arguments: { expression: 'a', data: { a: i } },
      });
      expect(answer.structuredContent).toEqual({ result: i });
    }
    stop.abort();
    await Promise.allSettled(hogging);
  });
});
