import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientCapabilities,
} from '@modelcontextprotocol/client';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '@toolplane/fixtures';
import { createToolkit, type ConnectorSource, type Toolkit } from '@toolplane/toolkit';
import { runToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpGateway } from '../http/serve.js';

interface Served {
  readonly toolkit: Toolkit;
  readonly gateway: HttpGateway;
  stop(): Promise<void>;
}

async function serve(source: ConnectorSource): Promise<Served> {
  const toolkit = createToolkit();
  toolkit.addConnector(source, { namespace: 'fx' });
  const running = await runToolkit(toolkit);
  const gateway = await serveHttp(toolkit, { port: 0 });
  return {
    toolkit,
    gateway,
    stop: async () => {
      await gateway.close();
      await running.stop();
    },
  };
}

const clients: Client[] = [];

async function connect(
  url: URL,
  capabilities: ClientCapabilities = { sampling: {}, elicitation: { form: {} } },
): Promise<Client> {
  const client = new Client({ name: 'session', version: '0.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const { content } = result as CallToolResult;
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** A promise that resolves once `count` parties have arrived. */
function barrier(count: number): { arrive: () => Promise<void> } {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    arrive: () => {
      if (++arrived === count) open();
      return opened;
    },
  };
}

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe('upstream requests through an HTTP upstream', () => {
  let fixture: HttpFixture;
  let served: Served;
  beforeAll(async () => {
    fixture = await startHttpFixture();
    served = await serve(fixture.url.href);
  });
  afterAll(async () => {
    await served.stop();
    await fixture.close();
  });

  it('sends each sampling request to the session whose call caused it, with calls overlapping', async () => {
    const sessions = await Promise.all([connect(served.gateway.url), connect(served.gateway.url)]);
    const both = barrier(2);
    const seen: string[][] = [[], []];
    sessions.forEach((client, i) => {
      client.setRequestHandler('sampling/createMessage', async (request) => {
        const content = request.params.messages[0]?.content;
        const block = Array.isArray(content) ? content[0] : content;
        seen[i]?.push(block?.type === 'text' ? block.text : '?');
        // Both calls are in flight upstream at once before either is answered.
        await both.arrive();
        return {
          role: 'assistant',
          model: `model-${i}`,
          content: { type: 'text', text: `answer of session ${i}` },
        };
      });
    });
    const results = await Promise.all(
      sessions.map((client, i) =>
        client.callTool({ name: 'fx__sample', arguments: { prompt: `question of session ${i}` } }),
      ),
    );
    expect(results.map(textOf)).toEqual(['answer of session 0', 'answer of session 1']);
    expect(seen).toEqual([['question of session 0'], ['question of session 1']]);
  });

  it('forwards elicitation and returns the answer upstream', async () => {
    const client = await connect(served.gateway.url);
    client.setRequestHandler('elicitation/create', (request) => {
      expect(request.params.message).toBe('what is the answer?');
      return { action: 'accept', content: { answer: '42' } };
    });
    const result = await client.callTool({
      name: 'fx__elicit',
      arguments: { message: 'what is the answer?' },
    });
    expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { answer: '42' } });
  });

  it('fails the call when its session does not support sampling', async () => {
    const client = await connect(served.gateway.url, {});
    const result = await client.callTool({
      name: 'fx__sample',
      arguments: { prompt: 'anyone?' },
    });
    expect(result.isError).toBe(true);
    expect(result._meta?.['io.toolplane/error']).toMatchObject({ code: 'execution' });
  });
});

describe('upstream requests through a stdio upstream', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(fixtureCommand('stdio'));
  });
  afterAll(async () => {
    await served.stop();
  });

  it('sends a sampling request to the only session with a call in flight', async () => {
    const client = await connect(served.gateway.url);
    client.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'over stdio' },
    }));
    const result = await client.callTool({ name: 'fx__sample', arguments: { prompt: 'hi' } });
    expect(textOf(result)).toBe('over stdio');
  });

  it('refuses rather than guesses when two sessions have calls in flight', async () => {
    const [asking, busy] = await Promise.all([
      connect(served.gateway.url),
      connect(served.gateway.url),
    ]);
    const misrouted: string[] = [];
    for (const client of [asking, busy]) {
      client.setRequestHandler('sampling/createMessage', () => {
        misrouted.push('sampling');
        return { role: 'assistant', model: 'm', content: { type: 'text', text: 'guess' } };
      });
    }
    const controller = new AbortController();
    let started: () => void = () => undefined;
    const isStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = busy
      .callTool(
        { name: 'fx__slow', arguments: { ms: 30_000 } },
        {
          signal: controller.signal,
          onprogress: () => {
            started();
          },
        },
      )
      .catch(() => undefined);
    await isStarted;
    const result = await asking.callTool({
      name: 'fx__sample',
      arguments: { prompt: 'whose?' },
    });
    controller.abort();
    await slow;
    expect(result.isError).toBe(true);
    expect(misrouted).toEqual([]);
  });
});

describe('upstream requests of a 2026-07-28 upstream refused by the client', () => {
  let fixture: HttpFixture;
  let served: Served;
  beforeAll(async () => {
    fixture = await startHttpFixture({ server: fixtureCommand('http-2026') });
    served = await serve(fixture.url.href);
  });
  afterAll(async () => {
    await served.stop();
    await fixture.close();
  });

  it('fails the call as a tool result, as with a 2025 upstream, not with the client own error', async () => {
    const client = await connect(served.gateway.url);
    client.setRequestHandler('sampling/createMessage', () => {
      throw new Error('no model here');
    });
    const result = await client.callTool({ name: 'fx__sample', arguments: { prompt: 'anyone?' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('no model here');
  });
});
