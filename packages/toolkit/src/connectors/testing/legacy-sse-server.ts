// Test helper: the server side of the HTTP+SSE transport that predates Streamable HTTP (MCP
// 2024-11-05), which SDK v2 no longer ships. A GET opens the event stream, whose first event
// names the endpoint to POST messages to; answers go down the stream.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import { readBody } from '@toolplane/fixtures';

/** One HTTP+SSE session: its event stream, and the POSTs that carry its client's messages. */
export class LegacySseServerTransport implements Transport {
  readonly sessionId = randomUUID();
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #endpoint: string;
  readonly #stream: ServerResponse;
  #closed = false;

  /** `endpoint` is the path POSTs go to; `stream` is the response of the GET that opened it. */
  constructor(endpoint: string, stream: ServerResponse) {
    this.#endpoint = endpoint;
    this.#stream = stream;
  }

  start(): Promise<void> {
    this.#stream.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    this.#stream.write(`event: endpoint\ndata: ${this.#endpoint}?sessionId=${this.sessionId}\n\n`);
    this.#stream.on('close', () => {
      this.#end();
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the SSE stream is closed'));
    this.#stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#stream.end();
    this.#end();
    return Promise.resolve();
  }

  /** Takes one POSTed message: accepted at once (202), answered on the stream. */
  async handlePost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(body.toString('utf8')) as JSONRPCMessage;
    } catch {
      res.writeHead(400).end('invalid JSON');
      return;
    }
    res.writeHead(202).end('Accepted');
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const request = new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), { headers });
    this.onmessage?.(message, { request });
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
