import { PassThrough } from 'node:stream';
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, defineTool } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway } from './http/serve.js';
import type { ServedGateway } from './options.js';
import { serveStdio } from './stdio/serve.js';
import { openRequest } from './testing/raw-client.js';

// Every request gets an answer: over HTTP and over stdio, whatever a client sends.

const echo = defineTool({
  name: 'echo',
  description: 'Returns its text.',
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

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

const PROTOCOL = '2025-06-18';
const initialize = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL,
    capabilities: {},
    clientInfo: { name: 'fuzz', version: '0' },
  },
};

let running: RunningToolkit;
let http: HttpGateway;

beforeAll(async () => {
  const toolkit = createToolkit({
    tools: [echo, hold, gate],
    connectorDefaults: { backoff: { initialDelayMs: 10, maxDelayMs: 50 } },
  });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  running = await runToolkit(toolkit);
  http = await serveHttp(running.toolkit, { port: 0 });
});

afterAll(async () => {
  await http.close();
  await running.stop();
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** POSTs `body` as it is (any text); resolves with the answer, or `undefined` after `ms`. */
function post(
  body: string,
  session: string | undefined,
  ms = 5_000,
  onHeaders?: (status: number) => void,
): Promise<Answer | undefined> {
  return new Promise((resolve, reject) => {
    const req = openRequest(
      http.url,
      (res) => {
        onHeaders?.(res.statusCode ?? 0);
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
        });
      },
      {
        headers:
          session === undefined
            ? {}
            : { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL },
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve(undefined);
    }, ms);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

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

async function openSession(): Promise<string> {
  const answer = await post(JSON.stringify(initialize), undefined);
  const session = answer?.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error(`no session: ${answer?.body ?? 'no answer'}`);
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
  return session;
}

/** The JSON-RPC messages of an answer's body, JSON or SSE. */
function messagesOf(answer: Answer): unknown[] {
  const type = String(answer.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) {
    return answer.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
  }
  if (answer.body === '') return [];
  const parsed = JSON.parse(answer.body) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** A stdio gateway over in-memory pipes: send a line, read the lines it answers. */
async function openStdio(): Promise<{
  send(line: string): void;
  next(match: (message: Record<string, unknown>) => boolean, ms?: number): Promise<unknown>;
  discard(match: (message: Record<string, unknown>) => boolean): void;
  close(): Promise<void>;
}> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const served: ServedGateway = await serveStdio(running.toolkit, { stdin, stdout });
  const seen: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines)
      if (line !== '') seen.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of waiters) wake();
  });
  const session = {
    send(line: string) {
      stdin.write(`${line}\n`);
    },
    next(match: (message: Record<string, unknown>) => boolean, ms = 5_000): Promise<unknown> {
      return new Promise((resolve) => {
        const look = (): boolean => {
          const at = seen.findIndex(match);
          if (at < 0) return false;
          resolve(seen.splice(at, 1)[0]);
          return true;
        };
        if (look()) return;
        const wake = (): void => {
          if (look()) done();
        };
        const timer = setTimeout(() => {
          done();
          resolve(undefined);
        }, ms);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
      });
    },
    discard(match: (message: Record<string, unknown>) => boolean): void {
      for (let at = seen.findIndex(match); at >= 0; at = seen.findIndex(match)) seen.splice(at, 1);
    },
    close: () => served.close(),
  };
  session.send(JSON.stringify(initialize));
  await session.next((m) => m.id === 'init');
  session.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return session;
}

const withId = (id: unknown) => (message: Record<string, unknown>) => message.id === id;

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
    await serveStdio(running.toolkit, { stdin, stdout, onEnd: ended });
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
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const VALID: readonly Record<string, unknown>[] = [
  { method: 'ping' },
  { method: 'tools/list', params: {} },
  { method: 'tools/list', params: { cursor: 'x' } },
  { method: 'tools/call', params: { name: 'builtin__echo', arguments: { text: 'hi' } } },
  { method: 'tools/call', params: { name: 'fx__echo', arguments: { text: 'hi' } } },
  { method: 'tools/call', params: { name: 'fx__add', arguments: { a: 1, b: 2 } } },
  { method: 'prompts/list' },
  { method: 'prompts/get', params: { name: 'fx__echo', arguments: { text: 'x' } } },
  { method: 'resources/list' },
  { method: 'resources/templates/list' },
  { method: 'resources/read', params: { uri: 'fixture://readme' } },
  { method: 'resources/subscribe', params: { uri: 'fixture://readme' } },
  { method: 'logging/setLevel', params: { level: 'info' } },
  {
    method: 'completion/complete',
    params: {
      ref: { type: 'ref/prompt', name: 'fx__echo' },
      argument: { name: 'text', value: '' },
    },
  },
];

const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  -1,
  1.5,
  2 ** 60,
  '',
  'x'.repeat(100_000),
  [],
  [1, { a: 2 }],
  {},
  JSON.parse('{"__proto__": {"polluted": true}}'),
  { nested: { deeper: { deepest: [[[[{}]]]] } } },
];

/** A 3 MB string: within both transports' 4 MiB limits, a body near the size they accept. */
const HUGE = 'h'.repeat(3_000_000);

/**
 * The `key`th mutated message (`key` unique in the run): the message, and the ID to expect an
 * answer under: the string or integer it carries, `null` when it carries an ID that cannot be
 * told, `undefined` when no answer is due (a notification, or a response).
 */
function mutateOne(key: number, next: () => number): { message: unknown; id: unknown } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  // A copy each time, so no two places share (and grow) one value.
  const odd = (): unknown => structuredClone(pick(ODD_VALUES));
  // An own `__proto__` member, as JSON text from a hostile client carries it.
  const setOwn = (target: Record<string, unknown>, name: string, value: unknown): void => {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true });
  };
  const base = structuredClone(pick(VALID));
  const message: Record<string, unknown> = { jsonrpc: '2.0', id: 100_000 + key, ...base };
  const params = (message.params ?? {}) as Record<string, unknown>;
  for (let round = 1 + Math.floor(next() * 3); round > 0; round--) {
    switch (Math.floor(next() * 10)) {
      case 0:
        setOwn(message, pick(['extra', 'result', 'error', '__proto__', 'meta']), odd());
        break;
      case 1:
        Reflect.deleteProperty(message, pick(['jsonrpc', 'id', 'method', 'params']));
        break;
      case 2:
        message.jsonrpc = pick(['1.0', 2, null, '2.0 ', '']);
        break;
      case 3:
        message.id = pick([
          `s-${key}`,
          `${'i'.repeat(10_000)}-${key}`,
          -key - 1,
          2 ** 60 + key * 1024,
          (key + 0.5) / 7,
          Number.POSITIVE_INFINITY,
          null,
          { id: key },
          [key],
        ]);
        break;
      case 4:
        message.method = pick(['', 'nope', 'tools/call ', 'initialize', 5, null, 'x'.repeat(1000)]);
        break;
      case 5:
        message.params = odd();
        break;
      case 6:
        params[pick(['name', 'arguments', 'uri', 'cursor', 'level', 'ref', 'argument', '_meta'])] =
          odd();
        message.params = params;
        break;
      case 7:
        params._meta = pick([{ progressToken: {} }, { progressToken: key }, 'meta', []]);
        message.params = params;
        break;
      case 8:
        setOwn(params, '__proto__', { admin: true });
        message.params = params;
        break;
      default:
        if (typeof message.params === 'object' && message.params !== null)
          (message.params as Record<string, unknown>).arguments = odd();
    }
  }
  const id = message.id;
  // JSON writes Infinity as null; 2 ** 60 + … is an integer (its answer carries
  // the same number, however a client reads it).
  const told = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  // A response (a result or an error, no method) is never answered; anything else with an ID is.
  const response = !('method' in message) && ('result' in message || 'error' in message);
  return { message, id: !('id' in message) || response ? undefined : told ? id : null };
}

/**
 * The `index`th fuzz case as JSON text, and the IDs an answer is due under (see
 * {@link mutateOne}): mostly one mutated message; every 10th a batch of 2 to 4 (nested garbage
 * among them); every 250th one with a 3 MB string in it.
 */
function mutate(index: number, next: () => number): { text: string; ids: unknown[] } {
  if (index % 10 === 9) {
    const cases = Array.from({ length: 2 + Math.floor(next() * 3) }, (_, j) =>
      mutateOne(index * 10 + j, next),
    );
    const batch: unknown[] = cases.map((c) => c.message);
    if (next() < 0.3) batch.push(pick(next, [[[]], 'x', 5, null, [{ jsonrpc: '2.0' }]]));
    const nested = batch.length > cases.length ? [null] : [];
    return {
      text: JSON.stringify(batch),
      ids: [...cases.flatMap((c) => (c.id === undefined ? [] : [c.id])), ...nested],
    };
  }
  const { message, id } = mutateOne(index * 10, next);
  if (index % 250 === 0) (message as Record<string, unknown>).huge = HUGE;
  return { text: JSON.stringify(message), ids: id === undefined ? [] : [id] };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

/** Whether `answered` (JSON-RPC messages) holds an answer for each ID of `ids` (`null` too). */
function answersAll(ids: readonly unknown[], answered: readonly unknown[]): boolean {
  const left = answered.map((m) => (m as { id?: unknown }).id);
  return ids.every((id) => {
    const at = left.indexOf(id);
    if (at >= 0) left.splice(at, 1);
    return at >= 0;
  });
}

const FUZZ_COUNT = 3_000;

describe('fuzzing', () => {
  it(`answers every one of ${FUZZ_COUNT} mutated requests over HTTP`, async () => {
    const next = random(2026);
    const cases = Array.from({ length: FUZZ_COUNT }, (_, i) => mutate(i, next));
    const problems: string[] = [];
    // What the answers were: the cases reach every kind of answer, not only one refusal.
    const seen = new Set<string>();
    // Sessions of 100 cases each, sent 25 at a time: a mutated `initialize` or a refused
    // session does not hide the rest.
    for (let start = 0; start < cases.length; start += 100) {
      const session = await openSession();
      const chunk = cases.slice(start, start + 100);
      for (let at = 0; at < chunk.length; at += 25) {
        await Promise.all(
          chunk.slice(at, at + 25).map(async ({ text, ids }) => {
            const answer = await post(text, session);
            if (answer === undefined) {
              problems.push(`no HTTP answer: ${text.slice(0, 200)}`);
              return;
            }
            const answered = messagesOf(answer);
            for (const m of answered) {
              const { error } = m as { error?: { code?: unknown } };
              seen.add(error === undefined ? 'result' : String(error.code));
            }
            if (answer.status >= 500) problems.push(`${answer.status}: ${text.slice(0, 200)}`);
            // A POST refused as a whole (4xx) answers every request in it with one error.
            const whole = answer.status >= 400 && answered.length === 1 && ids.length > 0;
            const under = (answered[0] as { id?: unknown } | undefined)?.id;
            if (whole ? under !== null && !ids.includes(under) : !answersAll(ids, answered)) {
              problems.push(`no JSON-RPC answer (${answer.status}): ${text.slice(0, 200)}`);
            }
          }),
        );
      }
    }
    expect([...seen].sort()).toEqual(['-32600', '-32601', '-32602', 'result']);
    expect({ unanswered: problems.length, first: problems.slice(0, 5) }).toEqual({
      unanswered: 0,
      first: [],
    });
  }, 60_000);

  it(`answers every one of ${FUZZ_COUNT} mutated requests over stdio`, async () => {
    const next = random(2027);
    const cases = Array.from({ length: FUZZ_COUNT }, (_, i) => mutate(i, next));
    const problems: string[] = [];
    // Lanes of 100 cases, 10 at a time, each on a stdio gateway of its own (a mutated
    // `initialize` may not be answered twice in one session). Within a lane one case at a time,
    // so an answer under the ID `null` can be told apart from another case's.
    const lane = async (chunk: readonly { text: string; ids: unknown[] }[]): Promise<void> => {
      const stdio = await openStdio();
      try {
        for (const [index, { text, ids }] of chunk.entries()) {
          stdio.send(text);
          for (const id of ids) {
            if ((await stdio.next(withId(id), 2_000)) === undefined) {
              problems.push(`no answer under ${String(id).slice(0, 20)}: ${text.slice(0, 200)}`);
            }
          }
          const sentinel = `sentinel-${index}`;
          stdio.send(JSON.stringify({ jsonrpc: '2.0', id: sentinel, method: 'ping' }));
          if ((await stdio.next(withId(sentinel))) === undefined) {
            problems.push(`the session stopped answering after: ${text.slice(0, 200)}`);
            return;
          }
          // A refusal under `null` of a case that expected none came before the sentinel's answer.
          stdio.discard(withId(null));
        }
      } finally {
        await stdio.close();
      }
    };
    for (let start = 0; start < cases.length; start += 1_000) {
      const lanes = [];
      for (let at = start; at < Math.min(start + 1_000, cases.length); at += 100) {
        lanes.push(lane(cases.slice(at, at + 100)));
      }
      await Promise.all(lanes);
    }
    expect({ unanswered: problems.length, first: problems.slice(0, 5) }).toEqual({
      unanswered: 0,
      first: [],
    });
  }, 60_000);
});
