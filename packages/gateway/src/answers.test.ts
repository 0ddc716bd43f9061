import { PassThrough } from 'node:stream';
import { defineTool } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveStdio } from './stdio/serve.js';
import { openRequest } from './testing/raw-client.js';
import {
  messagesOf,
  useAnswering,
  openSession as openSessionAt,
  PROTOCOL,
  openStdio as openStdioOn,
  post as postTo,
  withId,
  type Answer,
} from './testing/answer-clients.js';

// Every request gets an answer: over HTTP and over stdio, whatever a client sends.

// Holds its call until the call is cancelled.
const hold = defineTool({
  name: 'hold',
  description: 'Answers when cancelled.',
  input: z.object({}),
  run: (_, { signal }) =>
    new Promise<string>((resolve) => {
      signal.addEventListener('abort', () => {
        resolve('cancelled');
      });
    }),
});

// Holds its call until the test opens the gate.
let openGate: () => void = () => undefined;
const gate = defineTool({
  name: 'gate',
  description: 'Answers when the test lets it.',
  input: z.object({}),
  run: () =>
    new Promise<string>((resolve) => {
      openGate = () => {
        resolve('through');
      };
    }),
});

const { toolkit, http } = useAnswering([hold, gate]);

/** POSTs `body` to the gateway; see the testing module's `post`. */
const post = (
  body: string,
  session: string | undefined,
  ms?: number,
  onHeaders?: (status: number) => void,
): Promise<Answer | undefined> => postTo(http.url, body, session, ms, onHeaders);
const openSession = (): Promise<string> => openSessionAt(http.url);
const openStdio = () => openStdioOn(toolkit);

/** A `notifications/cancelled` body for `requestId`. */
function cancelled(requestId: string | number, reason?: string): string {
  const params = reason === undefined ? { requestId } : { requestId, reason };
  return JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
}

/**
 * POSTs a `tools/call` of `name` (a tool that holds its answer) as `id`: the answer, and the
 * status line, which comes first (the call's answer is turned into a stream while it holds).
 */
function heldCall(
  session: string,
  id: string,
  name: string,
  ms: number,
): { call: Promise<Answer | undefined>; headers: Promise<number> } {
  let headersSent: (status: number) => void = () => undefined;
  const headers = new Promise<number>((resolve) => (headersSent = resolve));
  const call = post(
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }),
    session,
    ms,
    headersSent,
  );
  return { call, headers };
}

describe('answers over HTTP', () => {
  it('serves a request with a member JSON-RPC does not define', async () => {
    const session = await openSession();
    const answer = await post('{"jsonrpc":"2.0","id":2,"method":"ping","extra":1}', session);
    expect(answer && messagesOf(answer)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('refuses what is not JSON-RPC under its ID, or null, and serves the rest of a batch', async () => {
    const session = await openSession();
    const single = await post('{"jsonrpc":"1.0","id":4,"method":"ping"}', session);
    expect(single?.status).toBe(400);
    expect(single && messagesOf(single)).toMatchObject([{ id: 4, error: { code: -32600 } }]);
    const batch = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '1.0', id: 2, method: 'ping' },
        7,
        null,
      ]),
      session,
    );
    expect(batch?.status).toBe(200);
    const answers = batch ? messagesOf(batch) : [];
    expect(answers).toHaveLength(4);
    expect(answers).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: {} },
        expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32600 }) }),
      ]),
    );
    expect(answers.filter((a) => (a as { id?: unknown }).id === null)).toMatchObject([
      { error: { code: -32600 } },
      { error: { code: -32600 } },
    ]);
  });

  it('answers invalid params as -32602 in one line', async () => {
    const session = await openSession();
    const answer = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 5 } }),
      session,
    );
    expect(answer && messagesOf(answer)).toEqual([
      {
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32602,
          message: 'tools/call: params.name: Invalid input: expected string, received number',
        },
      },
    ]);
  });

  it('refuses an ID still in flight at once, and answers the first request too', async () => {
    const session = await openSession();
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'builtin__hold', arguments: {} },
    });
    const first = post(call, session);
    // The first is in flight once its stream is open; the same ID again is refused at once.
    let second: Answer | undefined;
    for (let tries = 0; tries < 50; tries++) {
      second = await post(call, session);
      const [message] = second ? messagesOf(second) : [];
      if ((message as { error?: { code?: number } } | undefined)?.error?.code === -32600) break;
    }
    expect(second && messagesOf(second)).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32600,
          message: 'request ID 7 is already in use by a request in flight in this session',
        },
      },
    ]);
    await post(cancelled(7), session);
    // Cancelled: its POST ends (an empty stream), it does not hang.
    const answer = await first;
    expect(answer?.status).toBe(200);
  });

  it('keeps refusing an ID whose POST the client closed until its request is cancelled', async () => {
    const session = await openSession();
    const call = (id: number, name: string) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    // The client gives up on the POST once its headers came (the call still runs).
    const gone = await new Promise<number>((resolve, reject) => {
      const req = openRequest(
        http.url,
        (res) => {
          req.destroy();
          resolve(res.statusCode ?? 0);
        },
        { headers: { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL } },
      );
      req.on('error', reject);
      req.end(call(8, 'builtin__hold'));
    });
    expect(gone).toBe(200);
    const again = await post(call(8, 'builtin__echo'), session);
    expect(again && messagesOf(again)).toMatchObject([{ id: 8, error: { code: -32600 } }]);
    await post(cancelled(8), session);
    const free = await post(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }), session);
    expect(free && messagesOf(free)).toEqual([{ jsonrpc: '2.0', id: 8, result: {} }]);
  });

  it('sends a slow call’s headers before its result, and ends its POST when it is cancelled', async () => {
    const session = await openSession();
    const { call, headers } = heldCall(session, 'c1', 'builtin__hold', 5_000);
    // The call holds until cancelled: its status line comes without it.
    let timer: NodeJS.Timeout | undefined;
    const noHeaders = new Promise<string>((resolve) => {
      timer = setTimeout(() => {
        resolve('none');
      }, 5_000);
    });
    expect(await Promise.race([headers, noHeaders])).toBe(200);
    clearTimeout(timer);
    await post(cancelled('c1', 'test'), session);
    const answer = await call;
    expect(answer?.headers['content-type']).toBe('text/event-stream');
    // No result follows a cancellation; the exchange ends.
    expect(answer && messagesOf(answer)).toEqual([]);
  });
});

describe('a notifications/cancelled sent as a request, with an ID', () => {
  it('is answered "method not found" and cancels nothing: the call it names still answers', async () => {
    const session = await openSession();
    const { call, headers } = heldCall(session, 'g1', 'builtin__gate', 10_000);
    expect(await headers).toBe(200);
    const request = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'bogus',
        method: 'notifications/cancelled',
        params: { requestId: 'g1' },
      }),
      session,
    );
    expect(request && messagesOf(request)).toMatchObject([
      { id: 'bogus', error: { code: -32601 } },
    ]);
    openGate();
    const answer = await call;
    expect(answer && messagesOf(answer)).toMatchObject([
      { id: 'g1', result: { content: [{ type: 'text', text: 'through' }] } },
    ]);
  });
});

describe('answers over stdio', () => {
  it('serves a request with a member JSON-RPC does not define, and names bad params', async () => {
    const stdio = await openStdio();
    try {
      stdio.send('{"jsonrpc":"2.0","id":2,"method":"ping","extra":1}');
      expect(await stdio.next(withId(2))).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
      stdio.send('{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":7}}');
      expect(await stdio.next(withId(3))).toMatchObject({
        error: { code: -32602, message: expect.stringMatching(/^resources\/read: params\.uri: /) },
      });
    } finally {
      await stdio.close();
    }
  });
});

describe('the end of stdin', () => {
  it('reads a last line without a newline, and answers every request before closing', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let ended: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (ended = resolve));
    await serveStdio(toolkit, { stdin, stdout, onEnd: ended });
    const answers: Record<string, unknown>[] = [];
    let heard: () => void = () => undefined;
    stdout.setEncoding('utf8');
    let partial = '';
    stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines)
        if (line !== '') answers.push(JSON.parse(line) as Record<string, unknown>);
      heard();
    });
    const answered = async (id: string): Promise<void> => {
      while (!answers.some(withId(id))) await new Promise<void>((resolve) => (heard = resolve));
    };
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'held', method: 'tools/call', params: { name: 'builtin__gate', arguments: {} } })}\n`,
    );
    // The last line has no newline after it; the end of the input follows it.
    stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'ping' }));
    await answered('last');
    // The input is over and the call still holds: the server waits for its answer to close.
    openGate();
    await closed;
    expect(answers.find(withId('held'))).toMatchObject({
      result: { content: [{ type: 'text', text: 'through' }] },
    });
  });
});

describe('an ID reused while in flight over stdio', () => {
  it('serves both requests: one stream carries both answers, so none is left without one', async () => {
    const stdio = await openStdio();
    try {
      const call = JSON.stringify({
        jsonrpc: '2.0',
        id: 'dup',
        method: 'tools/call',
        params: { name: 'fx__slow', arguments: { ms: 200 } },
      });
      stdio.send(call);
      stdio.send(call);
      const answers = [await stdio.next(withId('dup')), await stdio.next(withId('dup'))];
      expect(answers).toMatchObject([
        { id: 'dup', result: { content: [{ type: 'text', text: 'done' }] } },
        { id: 'dup', result: { content: [{ type: 'text', text: 'done' }] } },
      ]);
    } finally {
      await stdio.close();
    }
  });
});

// -- fuzzing ------------------------------------------------------------------------------------

/** A small seeded generator (mulberry32), so every run sends the same 3,000 messages. */
