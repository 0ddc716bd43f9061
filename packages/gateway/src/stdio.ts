import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Toolkit } from '@toolplane/toolkit';
import { createSingleSession, type GatewayOptions } from './server.js';

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions extends GatewayOptions {
  /** Default `process.stdin`. */
  readonly stdin?: Readable;
  /** Default `process.stdout`. */
  readonly stdout?: Writable;
  /** Close the toolkit too when the server closes (default `false`: the toolkit is the caller's). */
  readonly closeToolkit?: boolean;
}

/** A running gateway; see {@link serveStdio} and {@link serveHttp}. */
export interface ServedGateway {
  /** Closes every session (and the toolkit when `closeToolkit` was set). Idempotent. */
  close(): Promise<void>;
}

/**
 * The SDK only reports a line it cannot read; JSON-RPC asks for an error response (with a null
 * ID, as the request's is unknown), so the client hears what went wrong instead of waiting.
 */
function answerUnreadableLines(transport: StdioServerTransport): void {
  const report = transport.onerror;
  transport.onerror = (error) => {
    report?.(error);
    const code =
      error instanceof SyntaxError
        ? ErrorCode.ParseError
        : error.name === 'ZodError'
          ? ErrorCode.InvalidRequest
          : undefined;
    if (code === undefined) return;
    const message =
      code === ErrorCode.ParseError
        ? 'a line is not valid JSON; send one JSON-RPC message per line'
        : 'a line is not a JSON-RPC message';
    const answer = { jsonrpc: '2.0', id: null, error: { code, message } };
    transport.send(answer as unknown as JSONRPCMessage).catch(() => undefined);
  };
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
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await server.close();
      if (options.closeToolkit === true) await toolkit.close();
    })());
  // The client closing stdin ends the session.
  const stdin = options.stdin ?? process.stdin;
  stdin.once('end', () => {
    void close();
  });
  await server.connect(transport);
  answerUnreadableLines(transport);
  return { close };
}
