import type { Readable, Writable } from 'node:stream';
import type { Toolkit } from '@toolplane/toolkit';
import { createSingleSession, type GatewayOptions } from './server.js';
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
 * Serves `toolkit` as an MCP server over stdio (one session: the process's client). Resolves
 * once the transport is listening; `close()` ends it, as does the client closing stdin.
 *
 * The toolkit is the caller's to run and close unless `closeToolkit` is set; see
 * {@link createMcpServer} for what is served.
 */
export async function serveStdio(
  toolkit: Toolkit,
  options: ServeStdioOptions = {},
): Promise<ServedGateway> {
  const { server, hub } = createSingleSession(toolkit, options);
  await hub.negotiated;
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioTransport(
    stdin,
    options.stdout ?? process.stdout,
    options.maxLineBytes,
  );
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await server.close();
      if (options.closeToolkit === true) await toolkit.close();
    })());
  // The client closing stdin ends the session.
  stdin.once('end', () => {
    void close();
  });
  await server.connect(transport);
  return { close };
}
