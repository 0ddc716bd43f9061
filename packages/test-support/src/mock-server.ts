import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '@toolplane/fixtures';

/** One request the mock model server received. */
export interface ReceivedRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** What the wire checker found wrong with it (empty: nothing). */
  readonly problems: readonly string[];
}

/** A scripted model on 127.0.0.1: each request is answered by the next step of the script. */
export interface MockModelServer {
  /** The base URL to give the client (`baseURL`). */
  readonly url: string;
  readonly requests: readonly ReceivedRequest[];
  close(): Promise<void>;
}

/** One answer of a script: the JSON to send (or {@link streamed} events) for a request. */
export type Step = (body: Record<string, unknown>, path: string) => unknown;

const STREAMED = Symbol('streamed');

/** A step's answer sent as server-sent events (see {@link streamed}). */
export interface StreamedAnswer {
  readonly [STREAMED]: true;
  readonly events: readonly unknown[];
  readonly done: boolean;
}

/**
 * Makes a step's answer a stream of server-sent events, one `data:` line of JSON per event
 * (`event:` named after its `type`, as OpenAI's Responses API does), ending with `data: [DONE]`
 * when `done` is set (as Chat Completions does): what a client asked for `stream: true` reads.
 */
export function streamed(events: readonly unknown[], { done = false } = {}): StreamedAnswer {
  return { [STREAMED]: true, events, done };
}

function isStreamed(answer: unknown): answer is StreamedAnswer {
  return typeof answer === 'object' && answer !== null && STREAMED in answer;
}

function eventStream({ events, done }: StreamedAnswer): string {
  const lines = events.map((event) => {
    const type = (event as { type?: unknown }).type;
    const name = typeof type === 'string' ? `event: ${type}\n` : '';
    return `${name}data: ${JSON.stringify(event)}\n\n`;
  });
  return lines.join('') + (done ? 'data: [DONE]\n\n' : '');
}

/**
 * Starts a small HTTP server on 127.0.0.1 that speaks a provider's wire format as far as the
 * script goes: every POST is checked by `check` (when given), recorded, and answered with the
 * next step's JSON (or its {@link streamed} events); a request past the end of the script gets a 500 the client reports. A single
 * step instead of a list answers every request (a model that decides from what it is sent).
 */
export async function startMockServer(
  basePath: string,
  script: readonly Step[] | Step,
  check: (path: string, body: Record<string, unknown>) => string[] = () => [],
): Promise<MockModelServer> {
  const requests: ReceivedRequest[] = [];
  const steps = typeof script === 'function' ? undefined : [...script];
  const server: Server = createServer((request, response) => {
    void readBody(request).then((bytes) => {
      const text = bytes.toString('utf8');
      const path = (request.url ?? '').split('?')[0] ?? '';
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = {};
      }
      requests.push({ path, body, problems: check(path, body) });
      const step = steps === undefined ? (script as Step) : steps.shift();
      const status = step === undefined ? 500 : 200;
      const answer =
        step === undefined
          ? { error: { message: 'the mock model has no more steps', type: 'server_error' } }
          : step(body, path);
      if (isStreamed(answer)) {
        response.writeHead(status, { 'content-type': 'text/event-stream' });
        response.end(eventStream(answer));
        return;
      }
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      }),
  };
}
