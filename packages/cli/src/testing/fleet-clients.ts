// The clients the fleet tests drive the fleet with: SDK clients that note which instance
// answered, the text of a raw 2026-07-28 call's answer, and bounded waits. Test support.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type FetchLike,
} from '@modelcontextprotocol/client';
import type { ModernAnswer } from '@toolplane/fixtures';
import { MODERN_PROTOCOL_VERSION } from '@toolplane/toolmodel/wire';

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
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
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

/** The text of a raw call's answer. */
export const rawText = (answer: ModernAnswer): string =>
  answer.result?.content?.map((block) => block.text).join('') ?? '';
