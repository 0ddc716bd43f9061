// The clients the fleet tests drive the fleet with: SDK clients that note which instance
// answered, raw 2026-07-28 calls for input_required rounds, and bounded waits. Test support.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type FetchLike,
} from '@modelcontextprotocol/client';

const MODERN = '2026-07-28';

/** A fetch that records which instance answered each request (the `Toolplane-Instance` header). */
export function tallying(seen: string[]): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    seen.push(response.headers.get('toolplane-instance') ?? '');
    return response;
  };
}

export async function connect(
  url: URL,
  era: 'modern' | 'legacy',
  seen: string[] = [],
): Promise<Client> {
  const client = new Client(
    { name: `fleet-${era}`, version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: tallying(seen) }));
  return client;
}

export const echo = (client: Client, text: string) =>
  client.callTool({ name: 'fx__echo', arguments: { text } });

export const textOf = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/**
 * `fetch`, sent again once when the connection it was given turns out closed before any answer
 * came (`other side closed`): after an instance dies, HAProxy may end a streamed answer cleanly and
 * close its connection to the client just after, so a pooled connection can be dead when reused.
 * Only for requests that are safe to send twice.
 */
export async function fetchIdempotent(url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    if (cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fetch(url, init);
  }
}

/**
 * Resolves once this process's `fetch` has written `count` more request bodies to their sockets
 * (undici's `undici:request:bodySent` channel): the requests are on their way, whether or not
 * anyone reads them yet.
 */
export function requestsSent(count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    const onSent = (): void => {
      left -= 1;
      if (left > 0) return;
      unsubscribe('undici:request:bodySent', onSent);
      resolve();
    };
    subscribe('undici:request:bodySent', onSent);
  });
}

/** `promise`, or a rejection naming `what` once `ms` have passed: every wait here is bounded. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`${what}: not within ${String(ms)} ms`));
      }, ms);
    }),
  ]).finally(() => {
    clearTimeout(timer);
  });
}

/** Runs `count` tasks, `concurrency` at a time; resolves with their settled outcomes. */
export async function pool<T>(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  const outcomes: PromiseSettledResult<T>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        try {
          outcomes[i] = { status: 'fulfilled', value: await task(i) };
        } catch (reason) {
          outcomes[i] = { status: 'rejected', reason };
        }
      }
    }),
  );
  return outcomes;
}

/** A raw 2026-07-28 tools/call to one instance; a retry carries the round's answer. */
export const rawCall = async (url: URL, name: string, args: object, retry: object = {}) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: { form: {} },
            sampling: {},
          },
        },
        ...retry,
      },
    }),
  });
  const text = await response.text();
  return JSON.parse(
    text.startsWith('{') ? text : ([...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1] ?? 'null'),
  ) as {
    result?: {
      resultType?: string;
      inputRequests?: Record<string, { method: string }>;
      requestState?: string;
      content?: { text: string }[];
    };
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
};
export const rawText = (answer: Awaited<ReturnType<typeof rawCall>>): string =>
  answer.result?.content?.map((block) => block.text).join('') ?? '';
