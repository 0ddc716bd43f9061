import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { gatewayCommand } from './testing/gateway-command.js';
import { useHttpGateway } from './testing/http-gateway.js';
import { INITIALIZE_BODY, INITIALIZE_REQUEST, POST_HEADERS } from './testing/raw-client.js';

// An integer past 2^53 - 1 that JSON.parse reads as another number (9007199254740993 as
// 9007199254740992) must not reach a tool rounded: the request is refused, -32602, naming it.
// Clients in other languages send such integers; a JavaScript client cannot write one, so the
// SDK client's body is rewritten on its way out (`"BIG:n"` becomes the bare integer n).
const BIG = '9007199254740993';
/** A client's capabilities that take a server's form questions. */
const FORMS = { elicitation: { form: {} } };
const bare = (text: string): string => text.replace(/"BIG:(-?\d+)"/g, '$1');

const gateway = useHttpGateway(useFixtureToolkit());

describe('an SDK client over HTTP', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'big-integers', version: '0.0.0' });
    const rewriting: typeof fetch = (input, init) =>
      fetch(input, typeof init?.body === 'string' ? { ...init, body: bare(init.body) } : init);
    await client.connect(new StreamableHTTPClientTransport(gateway.url, { fetch: rewriting }));
  });
  afterAll(async () => {
    await client.close();
  });

  it('has a call whose arguments hold an inexact integer refused, the number named', async () => {
    const error = await client
      .callTool({ name: 'fx__add', arguments: { a: `BIG:${BIG}`, b: 0 } })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
    expect((error as ProtocolError).message).toMatch(
      /the integer 9007199254740993 in the arguments at "\/a" .* here 9007199254740992\).*as a string/,
    );
    // The session serves on.
    const sum = await client.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } });
    expect(sum.structuredContent).toEqual({ sum: 5 });
  });

  it('passes 2^53 - 1, 2^53 and 1e300 on as written', async () => {
    const safe = await client.callTool({
      name: 'fx__add',
      arguments: { a: 'BIG:9007199254740991', b: 0 },
    });
    expect(safe.structuredContent).toEqual({ sum: 9007199254740991 });
    const exact = await client.callTool({
      name: 'fx__add',
      arguments: { a: 'BIG:9007199254740992', b: 0 },
    });
    expect(exact.structuredContent).toEqual({ sum: 9007199254740992 });
    const float = await client.callTool({ name: 'fx__add', arguments: { a: 1e300, b: 1 } });
    expect(float.structuredContent).toEqual({ sum: 1e300 });
  });

  it("fails the server's elicitation with the reason when the answer holds one, never rounded", async () => {
    const asked = new Client({ name: 'big-answers', version: '0.0.0' }, { capabilities: FORMS });
    asked.setRequestHandler('elicitation/create', () => ({
      action: 'accept' as const,
      content: { answer: `BIG:${BIG}` },
    }));
    const rewriting: typeof fetch = (input, init) =>
      fetch(input, typeof init?.body === 'string' ? { ...init, body: bare(init.body) } : init);
    await asked.connect(new StreamableHTTPClientTransport(gateway.url, { fetch: rewriting }));
    try {
      const result = await asked.callTool({ name: 'fx__elicit', arguments: { message: 'n?' } });
      // The server's question failed with the reason; it was not given 9007199254740992.
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        {
          type: 'text',
          text: expect.stringMatching(
            /^the integer 9007199254740993 in the client's answer at "\/content\/answer" .* so the answer was refused/,
          ) as unknown,
        },
      ]);
      // The session serves on.
      const sum = await asked.callTool({ name: 'fx__add', arguments: { a: 2, b: 3 } });
      expect(sum.structuredContent).toEqual({ sum: 5 });
    } finally {
      await asked.close();
    }
  });

  it('passes a long integer inside a string on unchanged', async () => {
    const echoed = await client.callTool({ name: 'fx__echo', arguments: { text: BIG } });
    expect(echoed.content).toEqual([{ type: 'text', text: BIG }]);
  });
});

/** A raw POST; the answer's status and JSON (the first event's, for a stream). */
async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...headers },
    body,
  });
  const text = await response.text();
  const data =
    text.startsWith('{') || text.startsWith('[') ? text : /^data: (.*)$/m.exec(text)?.[1];
  return {
    status: response.status,
    json: JSON.parse(data ?? 'null') as unknown,
    headers: response.headers,
  };
}

describe('raw HTTP', () => {
  let session: string;
  beforeAll(async () => {
    const opened = await post(INITIALIZE_BODY);
    session = opened.headers.get('mcp-session-id') ?? '';
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', {
      'mcp-session-id': session,
    });
  });

  it('refuses a request whose params hold one, under its ID, and any method alike', async () => {
    const call = await post(
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fx__add","arguments":{"a":[0,{"deep":${BIG}}],"b":0}}}`,
      { 'mcp-session-id': session },
    );
    expect(call.status).toBe(200);
    expect(call.json).toMatchObject({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: expect.stringContaining('at "/a/1/deep"') },
    });
    const meta = await post(
      `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"progressToken":-${BIG}1}}}`,
      { 'mcp-session-id': session },
    );
    expect(meta.json).toMatchObject({
      id: 6,
      error: {
        code: -32602,
        message: expect.stringMatching(
          /^the integer -90071992547409931 in the params at "\/_meta\/progressToken" .* tools\/list request was refused/,
        ),
      },
    });
  });

  it('answers a malformed request that holds one as malformed (-32600), as without it', async () => {
    for (const body of [
      `{"jsonrpc":"2.0","id":[7],"method":"resources/list","params":{"n":${BIG}}}`,
      `{"jsonrpc":"","id":8,"method":"resources/list","params":{"n":${BIG}}}`,
      `{"jsonrpc":"2.0","id":9,"method":"resources/list","params":${BIG}}`,
    ]) {
      const answer = await post(body, { 'mcp-session-id': session });
      expect(answer.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    }
  });

  it('refuses a 2026-07-28 call that holds one, with no session', async () => {
    const meta = JSON.stringify({
      'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    const modern = await post(
      `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fx__add","arguments":{"a":${BIG},"b":0},"_meta":${meta}}}`,
      {
        'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'fx__add',
      },
    );
    expect(modern.json).toMatchObject({
      id: 9,
      error: { code: -32602, message: expect.stringContaining(BIG) },
    });
  });

  it("refuses only a batch's requests that hold one, and serves the rest", async () => {
    const batch = await post(
      `[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fx__add","arguments":{"a":${BIG},"b":0}}},` +
        `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"fx__add","arguments":{"a":9007199254740991,"b":0}}}]`,
      { 'mcp-session-id': session },
    );
    const answers = (Array.isArray(batch.json) ? batch.json : [batch.json]) as { id: number }[];
    expect(answers.sort((x, y) => x.id - y.id)).toMatchObject([
      { id: 7, error: { code: -32602, message: expect.stringContaining(BIG) } },
      { id: 8, result: { structuredContent: { sum: 9007199254740991 } } },
    ]);
  });
});

describe('raw stdio, a gateway child process', () => {
  it('refuses a call that holds one, under its ID, serves the next, and fails an answer that holds one', async () => {
    const { command, args } = gatewayCommand([
      { namespace: 'fx', source: fixtureCommand('stdio') },
    ]);
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const answers = new Map<unknown, unknown>();
      const waiting = new Map<unknown, (answer: unknown) => void>();
      let elicited: (request: { id: number }) => void = () => undefined;
      const elicitation = new Promise<{ id: number }>((resolve) => (elicited = resolve));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const message = JSON.parse(line) as { id?: unknown; method?: unknown };
        if (message.method === 'elicitation/create') {
          elicited(message as { id: number });
          return;
        }
        answers.set(message.id, message);
        waiting.get(message.id)?.(message);
      });
      const exchange = (id: number, line: string) =>
        new Promise<unknown>((resolve, reject) => {
          const timer = setTimeout(() => {
            reject(new Error(`no answer to ${String(id)}`));
          }, 15_000);
          waiting.set(id, (answer) => {
            clearTimeout(timer);
            resolve(answer);
          });
          child.stdin.write(`${line}\n`);
        });
      const { params } = INITIALIZE_REQUEST;
      const initialize = { ...INITIALIZE_REQUEST, params: { ...params, capabilities: FORMS } };
      await exchange(1, JSON.stringify(initialize));
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      const add = (id: number, a: string) =>
        `{"jsonrpc":"2.0","id":${String(id)},"method":"tools/call","params":{"name":"fx__add","arguments":{"a":${a},"b":0}}}`;
      expect(await exchange(2, add(2, BIG))).toMatchObject({
        id: 2,
        error: { code: -32602, message: expect.stringContaining('the integer 9007199254740993') },
      });
      expect(await exchange(3, add(3, '9007199254740991'))).toMatchObject({
        id: 3,
        result: { structuredContent: { sum: 9007199254740991 } },
      });
      expect(await exchange(4, add(4, '1e300'))).toMatchObject({
        id: 4,
        result: { structuredContent: { sum: 1e300 } },
      });
      // The server asks this client; its answer holds one: the server's question fails.
      const called = exchange(
        5,
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fx__elicit","arguments":{"message":"n?"}}}',
      );
      const { id } = await elicitation;
      child.stdin.write(
        `{"jsonrpc":"2.0","id":${String(id)},"result":{"action":"accept","content":{"answer":${BIG}}}}\n`,
      );
      expect(await called).toMatchObject({
        id: 5,
        result: {
          isError: true,
          content: [{ text: expect.stringContaining(`the integer ${BIG} in the client's answer`) }],
        },
      });
    } finally {
      child.stdin.end();
      await exited;
    }
  });
});
