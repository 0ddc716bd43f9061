import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/client';
import {
  fixtureCommand,
  startHttpFixture,
  type FixtureMode,
  type HttpFixture,
} from '@toolplane/fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectorClient } from './connector-client.js';
import { CALLER_META_KEY, createConnector, type Connector } from './connector.js';
import type { UpstreamRequestHandler } from './connector-types.js';

// A call whose caller gives up must leave the connection's call tracker: otherwise a later server
// request that nothing ties to its call counts the gone caller too and is refused ("cannot be
// tied to one of 2 callers").

// eslint-disable-next-line @typescript-eslint/no-deprecated -- sampling is bridged in both eras
const sampled: CreateMessageResult = {
  role: 'assistant',
  model: 'test',
  content: { type: 'text', text: 'sampled' },
};

const connectors: Connector[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(connectors.splice(0).map((connector) => connector.close()));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

/** A connector whose handler answers sampling at once, and elicitation only when released. */
async function start(mode: FixtureMode) {
  let elicited: (() => void) | undefined;
  const asked = new Promise<void>((resolve) => {
    elicited = resolve;
  });
  const handler: UpstreamRequestHandler = {
    capabilities: { sampling: true, elicitation: true },
    handle: (request, context) =>
      request.method === 'sampling/createMessage'
        ? Promise.resolve(sampled)
        : new Promise<ElicitResult>((_resolve, reject) => {
            elicited?.();
            context.signal.addEventListener('abort', () => {
              reject(new Error('the elicitation was abandoned'));
            });
          }),
  };
  let source: URL | ReturnType<typeof fixtureCommand> = fixtureCommand(mode);
  if (mode.startsWith('http')) {
    const fixture = await startHttpFixture({ server: fixtureCommand(mode) });
    fixtures.push(fixture);
    source = fixture.url;
  }
  const connector = createConnector(source, { upstreamRequests: () => handler });
  connectors.push(connector);
  connector.start();
  await connector.ready();
  const client = connector.client;
  if (!(client instanceof ConnectorClient)) throw new Error('not connected');
  const call = (
    caller: string,
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ) =>
    client.callTool(
      { name, arguments: args, _meta: { [CALLER_META_KEY]: caller } },
      signal === undefined ? {} : { signal },
    );
  return { connector, client, call, asked };
}

function textOf(result: { content: unknown[] }): string {
  return (result.content as { text?: string }[]).map((block) => block.text ?? '').join('');
}

describe('CallTracker', () => {
  it.each(['stdio', 'http'] as const)(
    'drops a 2025 call when its notifications/cancelled is sent (%s)',
    async (mode) => {
      const { client, call } = await start(mode);
      const gone = new AbortController();
      const slow = call('gone', 'slow', { ms: 30_000, label: `tracker-${mode}` }, gone.signal);
      // Once the server runs it (it records its cancellation), the caller gives up.
      gone.abort(new Error('the caller left'));
      await expect(slow).rejects.toBeDefined();
      await call('other', 'wait-cancelled', { label: `tracker-${mode}`, timeoutMs: 10_000 });
      expect(client.calls?.inFlight).toBe(0);
      // Over stdio nothing ties the server's sampling request to its call: with the gone call
      // still counted, it would be refused.
      const result = await call('next', 'sample', { prompt: 'hi' });
      expect(textOf(result)).toBe('sampled');
    },
  );

  it.each(['stdio', 'http'] as const)(
    'drops a call the transport could not send (%s)',
    async (mode) => {
      const { client, call } = await start(mode);
      // Arguments nested too deeply to serialise: the call never reaches the server, so neither
      // an answer nor a cancellation will ever take it out.
      let deep: unknown[] = [];
      for (let depth = 0; depth < 200_000; depth++) deep = [deep];
      await expect(call('gone', 'echo', { text: 'x', deep })).rejects.toBeDefined();
      expect(client.calls?.inFlight).toBe(0);
      const result = await call('next', 'sample', { prompt: 'hi' });
      expect(textOf(result)).toBe('sampled');
    },
  );

  it.each(['stdio-2026', 'http-2026'] as const)(
    'drops a 2026-07-28 call cancelled during an input round (%s)',
    async (mode) => {
      const { client, call, asked } = await start(mode);
      const gone = new AbortController();
      const elicit = call('gone', 'elicit', { message: 'never answered' }, gone.signal);
      await asked;
      expect(client.calls?.inFlight).toBe(1);
      gone.abort(new Error('the caller left'));
      await expect(elicit).rejects.toBeDefined();
      expect(client.calls?.inFlight).toBe(0);
      const result = await call('next', 'sample', { prompt: 'hi' });
      expect(textOf(result)).toBe('sampled');
      expect(client.calls?.inFlight).toBe(0);
    },
  );

  it('drops a 2026-07-28 call cancelled while in flight (stdio-2026)', async () => {
    const { client, call } = await start('stdio-2026');
    const gone = new AbortController();
    const slow = call('gone', 'slow', { ms: 30_000, label: 'tracker-2026' }, gone.signal);
    await call('other', 'echo', { text: 'the slow call is sent' });
    gone.abort(new Error('the caller left'));
    await expect(slow).rejects.toBeDefined();
    expect(client.calls?.inFlight).toBe(0);
  });
});
