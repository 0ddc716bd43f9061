import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { loginCookie } from '@toolplane/dashboard/testing';
import { fixtureCommand } from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl, SERVE_HTTP, startCli, stop, useTempDir } from '../testing/cli-process.js';

// What operators see of the calls approval holds or refuses: the dashboard's live log and
// `/metrics` of a real `serve --http`, with real SDK clients with and without elicitation.

const TOKEN = 'approval-observe-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const dir = useTempDir('approval-observe');

interface CallEntry {
  readonly id: number;
  readonly tool: string;
  readonly outcome?: string;
  readonly waiting?: string;
}

let child: ChildProcess;
let url: URL;
let ui: URL;
let cookie: string;
const clients: Client[] = [];

async function connect(capabilities: ClientCapabilities): Promise<Client> {
  const client = new Client({ name: 'approval-observe', version: '0' }, { capabilities });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: auth } }));
  return client;
}

function textOf(result: unknown): string {
  return (result as CallToolResult).content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('');
}

/**
 * Opens the dashboard's live event stream (registered once its headers are here); yields each
 * `call` event's entry, in order.
 */
async function openCallEvents(signal: AbortSignal): Promise<AsyncGenerator<CallEntry>> {
  const response = await fetch(new URL('api/events', ui), { headers: { cookie }, signal });
  const body: ReadableStream<Uint8Array> | null = response.body;
  if (body === null) throw new Error('the event stream has no body');
  const reader = body.getReader();
  return (async function* () {
    const decoder = new TextDecoder();
    let text = '';
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      text += decoder.decode(read.value, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        if (!frame.startsWith('event: call\n')) continue;
        const data = frame.slice(frame.indexOf('data: ') + 6);
        yield (JSON.parse(data) as { call: CallEntry }).call;
      }
    }
  })();
}

async function recentCalls(): Promise<CallEntry[]> {
  const response = await fetch(new URL('api/calls', ui), { headers: { cookie } });
  return ((await response.json()) as { calls: CallEntry[] }).calls;
}

async function metrics(): Promise<string> {
  return (await fetch(new URL('/metrics', url), { headers: auth })).text();
}

beforeAll(async () => {
  const fixture = fixtureCommand('stdio');
  await writeFile(
    join(dir(), 'toolplane.config.json'),
    JSON.stringify({
      mcpServers: { fx: { command: fixture.command, args: fixture.args } },
      store: 'memory',
      http: { token: TOKEN },
      approval: { destructive: false, tools: ['fx:delete-item'] },
    }),
  );
  child = startCli(SERVE_HTTP, { cwd: dir() });
  url = await listeningUrl(child);
  ui = new URL('/ui/', url);
  cookie = await loginCookie(ui, TOKEN);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stop(child);
});

describe('serve with an approval policy', () => {
  it('shows a refused call in the live log and counts it in /metrics by its code', async () => {
    const client = await connect({});
    const result = await client.callTool({ name: 'fx__delete-item', arguments: { id: 'refused' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/approval_denied|needs approval/);
    // Refused before its backend: the upstream deleted nothing.
    const deleted = await client.callTool({ name: 'fx__deleted-items', arguments: {} });
    expect(JSON.parse(textOf(deleted))).toEqual([]);
    const refused = (await recentCalls()).filter((call) => call.tool === 'fx:delete-item');
    expect(refused).toEqual([expect.objectContaining({ outcome: 'approval_denied' })]);
    expect(await metrics()).toContain(
      'toolplane_tool_calls_total{namespace="fx",tool="fx:delete-item",outcome="approval_denied"} 1',
    );
  });

  it('shows a held call as waiting for approval while it waits, then its real outcome', async () => {
    const stream = new AbortController();
    // Open before the call starts, so it carries every event of the call.
    const events = await openCallEvents(stream.signal);
    let answer: (result: ElicitResult) => void = () => undefined;
    const client = new Client(
      { name: 'approval-observe-approver', version: '0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    clients.push(client);
    const asked = new Promise<void>((resolve) => {
      client.setRequestHandler('elicitation/create', () => {
        resolve();
        return new Promise<ElicitResult>((resolveAnswer) => (answer = resolveAnswer));
      });
    });
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: auth } }),
    );
    const calling = client.callTool({ name: 'fx__delete-item', arguments: { id: 'held' } });
    const seen: CallEntry[] = [];
    let next = await events.next();
    // Every event of the held call until the live log says it waits for approval.
    while (next.done !== true) {
      if (next.value.tool === 'fx:delete-item') seen.push(next.value);
      if (next.value.waiting === 'approval') break;
      next = await events.next();
    }
    await asked;
    const held = seen.at(-1);
    expect(held).toMatchObject({ tool: 'fx:delete-item', waiting: 'approval' });
    expect(held?.outcome).toBeUndefined();
    answer({ action: 'accept', content: { approve: true } });
    expect(textOf(await calling)).toContain('held');
    // Its end: the same entry, no longer waiting, with its real outcome.
    for (next = await events.next(); next.done !== true; next = await events.next()) {
      if (next.value.id === held?.id && next.value.outcome !== undefined) break;
    }
    stream.abort();
    expect(next.value).toMatchObject({ id: held?.id, outcome: 'ok' });
    expect(next.value).not.toHaveProperty('waiting');
    expect(await metrics()).toContain(
      'toolplane_tool_calls_total{namespace="fx",tool="fx:delete-item",outcome="ok"} 1',
    );
  });

  it('asks the dashboard operator in the page for a try-it call, and counts it once answered', async () => {
    const post = async (route: string, body: unknown) =>
      (await (
        await fetch(new URL(`api/${route}`, ui), {
          method: 'POST',
          headers: { cookie, origin: ui.origin, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as {
        question?: { id: string; message: string; approval: boolean };
        content?: { text?: string }[];
      };
    const asked = await post('call', { tool: 'fx:delete-item', arguments: { id: 'from-ui' } });
    expect(asked.question).toMatchObject({ approval: true });
    expect(asked.question?.message).toContain('Approve a call to tool "fx:delete-item"');
    const waiting = (await recentCalls()).filter((call) => call.tool === 'fx:delete-item').at(-1);
    expect(waiting).toMatchObject({ waiting: 'approval' });
    const done = await post('answer', {
      question: asked.question?.id,
      action: 'accept',
      content: { approve: true },
    });
    expect(done.content?.[0]?.text).toContain('from-ui');
    const ended = (await recentCalls()).find((call) => call.id === waiting?.id);
    expect(ended).toMatchObject({ outcome: 'ok' });
    expect(await metrics()).toContain(
      'toolplane_tool_calls_total{namespace="fx",tool="fx:delete-item",outcome="ok"} 2',
    );
  });
});
