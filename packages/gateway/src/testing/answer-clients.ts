// The clients of the gateway's "every request gets an answer" tests (answers.test.ts and
// answers-fuzz.test.ts): raw HTTP POSTs of any text, and a stdio gateway over in-memory pipes.
import { PassThrough } from 'node:stream';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { defineTool, type DefinedTool, type Toolkit } from '@toolplane/toolkit';
import { z } from 'zod';
import type { ServedGateway } from '../options.js';
import { serveStdio } from '../stdio/serve.js';
import { useHttpGateway, type ServedHttpGateway } from './http-gateway.js';
import { openRequest } from './raw-client.js';

/** A builtin that returns its `text`. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Returns its text.',
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

/**
 * A toolkit with `echo`, `tools` and the fixture server as `fx`, served over HTTP, for the test
 * file (its `beforeAll` until its `afterAll`).
 */
export function useAnswering(tools: readonly DefinedTool[] = []): {
  toolkit: Toolkit;
  http: ServedHttpGateway;
} {
  const toolkit = useFixtureToolkit({
    tools: [echoTool, ...tools],
    connectorDefaults: { backoff: { initialDelayMs: 10, maxDelayMs: 50 } },
  });
  return { toolkit, http: useHttpGateway(toolkit) };
}

/** The revision the raw clients speak. */
export const PROTOCOL = '2025-06-18';

/** The raw clients' `initialize` request. */
export const initialize = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL,
    capabilities: {},
    clientInfo: { name: 'fuzz', version: '0' },
  },
};

/**
 * How long the clients wait before they read a request as never answered: far beyond any
 * answer's time, so that a machine slowed many times over by other work (a CI runner beside
 * other jobs) still reads a slow answer as an answer.
 */
export const NEVER_MS = 20_000;

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** POSTs `body` as it is (any text); resolves with the answer, or `undefined` after `ms`. */
export function post(
  url: URL,
  body: string,
  session: string | undefined,
  ms = NEVER_MS,
  onHeaders?: (status: number) => void,
): Promise<Answer | undefined> {
  return new Promise((resolve, reject) => {
    const req = openRequest(
      url,
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

/** A 2025 session opened at `url`: its ID. */
export async function openSession(url: URL): Promise<string> {
  const answer = await post(url, JSON.stringify(initialize), undefined);
  const session = answer?.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error(`no session: ${answer?.body ?? 'no answer'}`);
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
  return session;
}

/** The JSON-RPC messages of an answer's body, JSON or SSE. */
export function messagesOf(answer: Answer): unknown[] {
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
export async function openStdio(toolkit: Toolkit): Promise<{
  send(line: string): void;
  next(match: (message: Record<string, unknown>) => boolean, ms?: number): Promise<unknown>;
  discard(match: (message: Record<string, unknown>) => boolean): void;
  close(): Promise<void>;
}> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const served: ServedGateway = await serveStdio(toolkit, { stdin, stdout });
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
    next(match: (message: Record<string, unknown>) => boolean, ms = NEVER_MS): Promise<unknown> {
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

/** Matches the message answering `id`. */
export const withId = (id: unknown) => (message: Record<string, unknown>) => message.id === id;
