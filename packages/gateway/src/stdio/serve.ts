import type { Readable, Writable } from 'node:stream';
import { classifyInboundRequest, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio as serveSdkStdio } from '@modelcontextprotocol/server/stdio';
import type { Toolkit } from '@toolplane/toolkit';
import { legacyClaimRefusal } from '../eras.js';
import { GatewayHub } from '../hub.js';
import { checkGatewayOptions, CONFIG_COUNT, GATEWAY_OPTION_KEYS } from '../option-checks.js';
import { checkDuration, countOr, optionKeys } from '@toolplane/toolmodel';
import type { GatewayOptions, ServedGateway } from '../options.js';
import type { McpServerInstance } from '../sdk/gateway-server.js';
import { createSessionServer } from '../server.js';
import { DEFAULT_MAX_LINE_BYTES, StdioTransport } from './transport.js';
import { GatewayServer } from '../sdk/gateway-server.js';

/** Options of {@link serveStdio}. */
/** How long requests in flight at the close may take, unless `drainMs` says otherwise. */
const DEFAULT_DRAIN_MS = 10_000;

export interface ServeStdioOptions extends GatewayOptions {
  /** Default `process.stdin`. */
  readonly stdin?: Readable;
  /** Default `process.stdout`. */
  readonly stdout?: Writable;
  /** Close the toolkit too when the server closes (default `false`: the toolkit is the caller's). */
  readonly closeToolkit?: boolean;
  /** Longest line read as a message, in bytes (default 4 MiB; longer gets a JSON-RPC error). */
  readonly maxLineBytes?: number;
  /**
   * How long, on `close()` or once the client has closed stdin, the requests it sent may still
   * take to be answered before the server closes (default 10 s).
   */
  readonly drainMs?: number;
  /** Told once the client closing stdin has closed the server (its requests answered). */
  readonly onEnd?: () => void;
}

/** Every key of {@link ServeStdioOptions}. */
export const STDIO_OPTION_KEYS = [
  ...GATEWAY_OPTION_KEYS,
  ...optionKeys<Omit<ServeStdioOptions, keyof GatewayOptions>>({
    stdin: true,
    stdout: true,
    closeToolkit: true,
    maxLineBytes: true,
    drainMs: true,
    onEnd: true,
  }),
];

/**
 * Serves `toolkit` as an MCP server over stdio (one session: the process's client). The opening
 * exchange picks the era for the connection: `initialize` a 2025 session, a 2026-07-28 request
 * (`server/discover` first, as clients probe) a connection served per request. Resolves once
 * the transport is listening; `close()` ends it, as does the client closing stdin.
 *
 * The toolkit is the caller's to run and close unless `closeToolkit` is set; see
 * {@link createMcpServer} for what is served.
 *
 * @throws {ToolError} `invalid_config` for an option it does not take, or a `maxLineBytes` or
 * `drainMs` it cannot keep.
 */
export async function serveStdio(
  toolkit: Toolkit,
  options: ServeStdioOptions = {},
): Promise<ServedGateway> {
  checkGatewayOptions(options, 'serveStdio', STDIO_OPTION_KEYS);
  // NaN (`Number(process.env.X)` of a variable not set) bounded no line at all.
  const maxLineBytes = countOr(
    options.maxLineBytes,
    DEFAULT_MAX_LINE_BYTES,
    'maxLineBytes',
    CONFIG_COUNT,
  );
  // A timer set for longer than it keeps (or NaN) fires at once: the drain waited for nothing.
  if (options.drainMs !== undefined) {
    checkDuration(options.drainMs, 'drainMs', { code: 'invalid_config', zero: true });
  }
  const hub = new GatewayHub(toolkit, options);
  await hub.negotiated;
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioTransport(stdin, options.stdout ?? process.stdout, maxLineBytes);
  // The SDK's entry owns the era decision; the transport stays the gateway's own (line limits,
  // an answer to every line).
  let modern: McpServerInstance | undefined;
  // The connection's server, in the era it opened with, for its call lane.
  let laned: GatewayServer | undefined;
  // Whether the opening exchange has picked the connection's era (made its server).
  let opened = false;
  const served = serveSdkStdio(
    ({ era }) => {
      opened = true;
      const server = createSessionServer(hub, era);
      if (era === 'modern') modern = server;
      if (server instanceof GatewayServer) laned = server;
      return server;
    },
    { transport, onerror: () => undefined },
  );
  // A connection's plain calls (either era) go straight to the session's call lane, past the
  // SDK's entry (its queue, and the zod checks of its channel), answered on the wire.
  const answer = (message: JSONRPCMessage): Promise<void> => transport.send(message);
  transport.onRequest = (request) => {
    if (opened) {
      return (
        request.method === 'tools/call' && laned?.callLane?.(request, undefined, answer) === true
      );
    }
    // Before the era is picked, a request naming a 2025 revision in its _meta is told that the
    // era opens with initialize (the SDK's entry would say only 2026-07-28 is served).
    const refusal = legacyClaimRefusal(
      classifyInboundRequest({ httpMethod: 'POST', body: request }),
    );
    if (refusal === undefined) return false;
    void answer(refusal);
    return true;
  };
  const stopListening = listenOverStdio(hub, transport, () => modern);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      // Every request read gets its answer first, as over HTTP, up to the bound.
      await transport.answered(options.drainMs ?? DEFAULT_DRAIN_MS);
      stopListening();
      await served.close();
      hub.dispose();
      if (options.closeToolkit === true) await toolkit.close();
    })());
  // The client closing stdin ends the session, once what it asked for has been answered (its
  // last line read even without a newline after it).
  stdin.once('end', () => {
    transport.readLastLine();
    void close().then(() => options.onEnd?.());
  });
  return Promise.resolve({
    close,
    reconfigure: (next) => {
      hub.reconfigure(next);
    },
  });
}

/**
 * `subscriptions/listen` on a 2026-07-28 stdio connection: the SDK's entry keeps the streams and
 * routes the connection's server's change notifications onto those that asked for them, so the
 * hub's list changes and resource updates are sent through that server; the resources a stream
 * names are subscribed upstream (before the stream is served) until it is cancelled, answered or
 * the connection ends. Returns the stop.
 */
function listenOverStdio(
  hub: GatewayHub,
  transport: StdioTransport,
  server: () => McpServerInstance | undefined,
): () => void {
  const streams = new Map<string | number, Promise<(() => void) | undefined>>();
  const end = (id: unknown): void => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const release = streams.get(id);
    if (release === undefined) return;
    streams.delete(id);
    void release.then((fn) => fn?.());
  };
  transport.onInbound = (message) => {
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
    if (method === 'notifications/cancelled') {
      // With an ID it is a request (answered "method not found"), and cancels nothing.
      if (id === undefined) end((params as { requestId?: unknown } | undefined)?.requestId);
      return undefined;
    }
    if (method !== 'subscriptions/listen' || (typeof id !== 'string' && typeof id !== 'number'))
      return undefined;
    end(id);
    const release = hub.listen(message).catch(() => undefined);
    streams.set(id, release);
    return release.then(() => undefined);
  };
  transport.onOutbound = (message) => {
    if (!('method' in message)) end((message as { id?: unknown }).id);
  };
  const stopUpdates = hub.listeners.onUpdate((uri) => {
    server()
      ?.sendResourceUpdated({ uri })
      .catch(() => undefined);
  });
  const stopChanges = hub.onListChange((kinds) => {
    const current = server();
    if (current === undefined) return;
    for (const kind of kinds) {
      const sent =
        kind === 'tools'
          ? current.sendToolListChanged()
          : kind === 'prompts'
            ? current.sendPromptListChanged()
            : current.sendResourceListChanged();
      sent.catch(() => undefined);
    }
  });
  return () => {
    stopUpdates();
    stopChanges();
    for (const id of [...streams.keys()]) end(id);
  };
}
