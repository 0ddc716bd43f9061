/**
 * A small OpenAI-compatible Chat Completions server on 127.0.0.1 with a scripted "model", so the
 * example runs offline and in CI. The script reads what the real client sends, as a model would:
 * asked to add two numbers with a get-sum tool on offer, it calls the tool; given the tool's
 * result, it answers with it; asked to summarize, it answers the text's first three sentences.
 * Asked anything with `[hang]` in it, it never answers, so a test can cancel a request in flight.
 * It checks the wire format it receives (tool names, schemas, tool-call ids) and records every
 * request, so the example can assert what reached the model.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Chat Completions message as the client sends it. */
export interface WireMessage {
  readonly role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  readonly content?: string | readonly { readonly type: string; readonly text?: string }[] | null;
  readonly tool_calls?: readonly {
    readonly id: string;
    readonly function: { readonly name: string; readonly arguments: string };
  }[];
  readonly tool_call_id?: string;
}

/** One Chat Completions request body, the parts the script reads. */
export interface WireRequest {
  readonly model: string;
  readonly messages: readonly WireMessage[];
  readonly tools?: readonly {
    readonly type: string;
    readonly function: { readonly name: string; readonly parameters?: unknown };
  }[];
}

/** A running scripted server. */
export interface ScriptedOpenAI {
  /** Base URL for `createOpenAI({ baseURL })`, ending in `/v1`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly WireRequest[];
  /** Resolves when a `[hang]` request has arrived, then when its client has gone away. */
  hanging(): Promise<{ readonly closed: Promise<void> }>;
  close(): Promise<void>;
}

const MAX_BODY = 8 * 1024 * 1024;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The text of a message, however the client shaped its content. */
export function textOf(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

/** What the wire format breaks, if anything: the checks a provider would make. */
function problemOf(request: WireRequest): string | undefined {
  if (typeof request.model !== 'string' || !Array.isArray(request.messages)) {
    return 'model and messages are required';
  }
  for (const tool of request.tools ?? []) {
    if (tool.type !== 'function' || !TOOL_NAME.test(tool.function.name)) {
      return `invalid tool name ${JSON.stringify(tool.function.name)}`;
    }
    const parameters = tool.function.parameters as { type?: unknown } | undefined;
    if (parameters?.type !== 'object')
      return `tool ${tool.function.name}: parameters must be an object schema`;
  }
  const called = new Set<string>();
  const messages: readonly WireMessage[] = request.messages;
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) called.add(call.id);
    if (message.role === 'tool' && !called.has(message.tool_call_id ?? '')) {
      return `tool message for unknown tool_call_id ${JSON.stringify(message.tool_call_id)}`;
    }
  }
  return undefined;
}

type Turn = { readonly text: string } | { readonly call: string; readonly args: unknown };

/** The scripted model: what it says next, given the conversation so far. */
function nextTurn(request: WireRequest): Turn {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: `The tool says: ${textOf(last)}` };
  const asked = textOf(request.messages.findLast((message) => message.role === 'user'));
  const add = /Add (-?\d+(?:\.\d+)?) and (-?\d+(?:\.\d+)?)/.exec(asked);
  const sum = request.tools?.find((tool) => tool.function.name.endsWith('get-sum'));
  if (add !== null && sum !== undefined) {
    return { call: sum.function.name, args: { a: Number(add[1]), b: Number(add[2]) } };
  }
  const summarize = /Summarize the following text in three sentences:\s*([\s\S]*)/.exec(asked);
  if (summarize !== null) {
    const sentences = (summarize[1] ?? '').match(/[^.!?]+[.!?]+/g) ?? [];
    return {
      text: sentences
        .slice(0, 3)
        .map((s) => s.trim())
        .join(' '),
    };
  }
  const translate = /^Translate the text below into (.+)\.\n[\s\S]*\n\n([\s\S]*)$/.exec(asked);
  if (translate !== null) {
    // Asked for the prompt's output schema, the scripted translator answers its JSON.
    const text = (translate[2] ?? '').trim();
    return { text: JSON.stringify({ translation: `[${translate[1] ?? ''}] ${text}` }) };
  }
  return { text: 'I have no script for that.' };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  // Past the limit the rest is read and dropped, so the client still gets its 413.
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  }
  return size > MAX_BODY ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** Starts the scripted server on 127.0.0.1, on a free port. */
export async function startScriptedOpenAI(): Promise<ScriptedOpenAI> {
  const requests: WireRequest[] = [];
  const hangs: ((hang: { readonly closed: Promise<void> }) => void)[] = [];
  let calls = 0;
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        send(response, 404, { error: { message: `no route ${request.method} ${request.url}` } });
        return;
      }
      const text = await readBody(request);
      if (text === undefined) {
        send(response, 413, { error: { message: 'request body too large' } });
        return;
      }
      let body: WireRequest;
      try {
        body = JSON.parse(text) as WireRequest;
      } catch {
        send(response, 400, { error: { message: 'malformed JSON' } });
        return;
      }
      const problem = problemOf(body);
      if (problem !== undefined) {
        send(response, 400, { error: { message: problem, type: 'invalid_request_error' } });
        return;
      }
      requests.push(body);
      if (textOf(body.messages.at(-1)).includes('[hang]')) {
        const closed = new Promise<void>((resolve) => {
          response.once('close', resolve);
        });
        for (const wake of hangs.splice(0)) wake({ closed });
        return;
      }
      const turn = nextTurn(body);
      const id = `call_${++calls}`;
      const message =
        'text' in turn
          ? { role: 'assistant', content: turn.text }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id,
                  type: 'function',
                  function: { name: turn.call, arguments: JSON.stringify(turn.args) },
                },
              ],
            };
      send(response, 200, {
        id: `chatcmpl-${calls}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message, finish_reason: 'text' in turn ? 'stop' : 'tool_calls' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    })().catch((error: unknown) => {
      send(response, 500, { error: { message: String(error) } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    hanging: () =>
      new Promise((resolve) => {
        hangs.push(resolve);
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}
