// Test helper: an MCP SDK v2 server over Streamable HTTP on 127.0.0.1, in the test's own process,
// one transport (and server) per session as in a real deployment; optionally resumable (an event
// store), and with a hook that may answer a request itself, to play a server or proxy that
// misbehaves at the HTTP level.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';
import { listenMcp, readJsonBody } from '@toolplane/fixtures';
import { MemoryEventStore } from './memory-event-store.js';

/** A request as {@link ServeMcpOptions.intercept} sees it, body parsed for POSTs. */
export interface SeenRequest {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

/** Options of {@link serveMcpHttp}. */
export interface ServeMcpOptions {
  /** Makes the server of a new session. */
  readonly server: () => McpServer;
  /** Keep every session's events (an in-memory event store), so streams can be resumed. */
  readonly resumable?: boolean;
  /** The `retry` delay the server's priming events ask for, in milliseconds. */
  readonly retryInterval?: number;
  /** Sees every request first; returns true when it has answered it itself. */
  readonly intercept?: (request: SeenRequest, res: ServerResponse) => boolean;
}

/** A running {@link serveMcpHttp} server. */
export interface ServedMcp {
  /** The MCP endpoint. */
  readonly url: URL;
  /** Every request that reached it, in order, intercepted or not. */
  readonly requests: readonly SeenRequest[];
  /** Closes every connection and the listening socket. */
  close(): Promise<void>;
}

/** Serves `options.server` over Streamable HTTP on a free port of 127.0.0.1. */
export async function serveMcpHttp(options: ServeMcpOptions): Promise<ServedMcp> {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const requests: SeenRequest[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = req.method === 'POST' ? await readJsonBody(req) : undefined;
    const seen: SeenRequest = { method: req.method ?? 'GET', headers: req.headers, body };
    requests.push(seen);
    if (options.intercept?.(seen, res) === true) return;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      const fresh: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, fresh);
        },
        ...(options.resumable === true ? { eventStore: new MemoryEventStore() } : {}),
        ...(options.retryInterval === undefined ? {} : { retryInterval: options.retryInterval }),
      });
      await options.server().connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res, body);
  };
  const served = await listenMcp(handle);
  return {
    url: served.url,
    requests,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await served.close();
    },
  };
}
