import type { Readable, Writable } from 'node:stream';
import { serveStdio as serveSdkStdio } from '@modelcontextprotocol/server/stdio';
import type { Toolkit } from '@toolplane/toolkit';
import { GatewayHub } from './gateway-hub.js';
import { createSessionServer, type GatewayOptions } from './server.js';
import { StdioTransport } from './stdio-transport.js';

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions extends GatewayOptions {
  /** Default `process.stdin`. */
  readonly stdin?: Readable;
  /** Default `process.stdout`. */
  readonly stdout?: Writable;
  /** Close the toolkit too when the server closes (default `false`: the toolkit is the caller's). */
  readonly closeToolkit?: boolean;
  /** Longest line read as a message, in bytes (default 4 MiB; longer gets a JSON-RPC error). */
  readonly maxLineBytes?: number;
}

/** A running gateway; see {@link serveStdio} and {@link serveHttp}. */
export interface ServedGateway {
  /** Closes every session (and the toolkit when `closeToolkit` was set). Idempotent. */
  close(): Promise<void>;
}

/**
 * Serves `toolkit` as an MCP server over stdio (one session: the process's client). The opening
 * exchange picks the era for the connection: `initialize` a 2025 session, a 2026-07-28 request
 * (`server/discover` first, as clients probe) a connection served per request. Resolves once
 * the transport is listening; `close()` ends it, as does the client closing stdin.
 *
 * The toolkit is the caller's to run and close unless `closeToolkit` is set; see
 * {@link createMcpServer} for what is served.
 */
export async function serveStdio(
  toolkit: Toolkit,
  options: ServeStdioOptions = {},
): Promise<ServedGateway> {
  const hub = new GatewayHub(toolkit, options);
  await hub.negotiated;
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioTransport(
    stdin,
    options.stdout ?? process.stdout,
    options.maxLineBytes,
  );
  // The SDK's entry owns the era decision; the transport stays the gateway's own (line limits,
  // an answer to every line).
  const served = serveSdkStdio(({ era }) => createSessionServer(hub, era), {
    transport,
    onerror: () => undefined,
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await served.close();
      hub.dispose();
      if (options.closeToolkit === true) await toolkit.close();
    })());
  // The client closing stdin ends the session.
  stdin.once('end', () => {
    void close();
  });
  return Promise.resolve({ close });
}
