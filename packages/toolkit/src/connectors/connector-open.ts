import type { Client, PriorDiscovery } from '@modelcontextprotocol/client';
import { SSEClientTransport } from '@modelcontextprotocol/client';
import { captureTail, httpTarget, toError } from './connector-sources.js';
import type { HttpSource, StdioSource } from './connector-types.js';
import { ToolError } from '@toolplane/toolmodel';
import type { TransportAuth } from './transport/http-transport-parts.js';
import { StdioClientTransport } from './transport/stdio-client-transport.js';
import { brokenNpxCacheHint } from './npx-cache.js';

/** One connection attempt: a fresh client each try, and how long and until when to try. */
export interface Attempt {
  /** A new client, its capabilities and handlers set, not yet connected. */
  readonly make: () => Client;
  readonly timeout: number;
  /** Abandons the attempt (the connector closed). */
  readonly signal: AbortSignal;
  /** What the server spoke last time, to skip the era probe (see `EraMemory`). */
  readonly prior?: PriorDiscovery | undefined;
  /** Whether the era is pinned to 2026-07-28 (no 2025-only HTTP+SSE fallback then). */
  readonly modernOnly?: boolean;
}

/**
 * Runs `connect`, closing `transport` when the attempt is abandoned: the SDK's era probe does not
 * heed the connect signal, but a closed transport ends it at once.
 */
async function closingOnAbort<T>(
  transport: { close(): Promise<void> },
  signal: AbortSignal,
  connect: () => Promise<T>,
): Promise<T> {
  const onAbort = (): void => {
    transport.close().catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await connect();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `auth`, its `unauthorized` and `forbidden` failures reported to `onFailure` as they pass. */
function reporting(
  auth: TransportAuth,
  onFailure: ((error: unknown) => void) | undefined,
): TransportAuth {
  const report = (error: unknown): never => {
    if (ToolError.isInstance(error) && error.code === 'unauthorized') onFailure?.(error);
    throw error;
  };
  return {
    authorization: () => auth.authorization().catch(report),
    refused: (refusal) => auth.refused(refusal).catch(report),
    accepted: (authorization) => auth.accepted?.(authorization),
  };
}

function connectOptions(attempt: Attempt) {
  const { timeout, signal, prior } = attempt;
  return prior === undefined ? { timeout, signal } : { timeout, signal, prior };
}

/**
 * Spawns a stdio server and connects a client to it.
 *
 * @throws {Error} naming the command, with the tail of its stderr, once the child has exited.
 */
export async function openStdio(
  source: StdioSource,
  attempt: Attempt & { readonly maxMessageBytes?: number },
): Promise<{ client: Client; pid: number | undefined }> {
  const { maxMessageBytes } = attempt;
  const transport = new StdioClientTransport({
    command: source.command,
    ...(source.args ? { args: source.args } : {}),
    ...(source.env ? { env: source.env } : {}),
    ...(source.cwd ? { cwd: source.cwd } : {}),
    ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    ...(source.prestarted === undefined ? {} : { adopt: () => source.prestarted?.take(source) }),
    ...(source.closing === undefined ? {} : { closing: source.closing }),
  });
  const tail = captureTail(transport);
  const client = attempt.make();
  const connecting = closingOnAbort(transport, attempt.signal, () =>
    client.connect(transport, connectOptions(attempt)),
  );
  // Spawned synchronously by the transport's start(); read now, as a failed connect forgets it.
  const pid = transport.pid ?? undefined;
  try {
    await connecting;
    return { client, pid };
  } catch (error) {
    // Ended on its own (not by the close below): its exit says more than the protocol's error.
    const ended = transport.exitStatus;
    // Resolves once the child has exited, SIGKILLed if it must be.
    await client.close().catch(() => undefined);
    const stderr = tail().trim();
    const hint = brokenNpxCacheHint(stderr);
    const message =
      endedBeforeAnswering(ended ?? exitedWith(transport, error)) ?? toError(error).message;
    // A start that ran out of time says which bound it was, so it can be raised.
    const bound = /timed out/i.test(message)
      ? ` (no answer within the start bound of ${String(attempt.timeout)} ms: the server's \`timeout\` in a config file, \`startTimeoutMs\` of the toolkit)`
      : /\bENOENT\b/.test(message)
        ? ' (no such command: check its spelling, or give its full path)'
        : '';
    throw new Error(
      `could not start "${source.command}": ${message}${bound}${hint === undefined ? '' : `; ${hint}`}${strayNote(transport.strayOutput)}${stderr ? `\n${stderr}` : ''}`,
      { cause: error },
    );
  }
}

/** What a failed start adds for a server that wrote other things than JSON-RPC to stdout. */
function strayNote(lines: readonly string[]): string {
  if (lines.length === 0) return '';
  return `; it wrote to stdout what is no JSON-RPC message (${lines.map((line) => JSON.stringify(line)).join(', ')}): an MCP server over stdio writes only JSON-RPC messages there, and its logs to stderr`;
}

/**
 * The exit code a child that failed its start ended with, when the failure was its connection
 * closing (it was exiting as it closed: the close that followed did not end it). Any other
 * failure (a bound, an error the server answered) keeps its own message.
 */
function exitedWith(
  transport: StdioClientTransport,
  error: unknown,
): { code: number | null; signal: NodeJS.Signals | null } | undefined {
  const message = toError(error).message;
  if (/timed out/i.test(message) || !/\bclosed\b/i.test(message)) return undefined;
  const status = transport.exitStatus;
  return status?.code === null ? undefined : status;
}

/** "it exited with code 3 before it answered", for a child that ended during its start. */
function endedBeforeAnswering(
  status: { code: number | null; signal: NodeJS.Signals | null } | undefined,
): string | undefined {
  if (status === undefined) return undefined;
  const how =
    status.code === null
      ? `was ended by ${String(status.signal)}`
      : `exited with code ${String(status.code)}`;
  return `it ${how} before it answered`;
}

/**
 * Connects a client to an HTTP server over Streamable HTTP, or else over the older HTTP+SSE.
 *
 * @throws {Error} the Streamable HTTP attempt's error when neither transport connects.
 */
export async function openHttp(
  source: HttpSource | string | URL,
  attempt: Attempt & {
    /** A server request arrived on the response stream of the call `callId`. */
    readonly onRelatedRequest: (callId: string | number, requestId: string | number) => void;
    /** Something suggests the server or its session is gone; see the transport. */
    readonly onSessionDoubt: (error: unknown) => void;
    readonly isClosed: () => boolean;
    /** The OAuth client found that a person must log in (or refused a step-up). */
    readonly onAuthRequired?: (error: unknown) => void;
  },
): Promise<Client> {
  const { url, headers } = httpTarget(source);
  const { timeout, signal, onSessionDoubt } = attempt;
  const oauth = typeof source === 'object' && 'url' in source ? source.oauth : undefined;
  // A login made elsewhere (`toolplane auth login`) is picked up at the next connection.
  oauth?.reload?.();
  // The HTTP transport (and its fetch, SSE parsing and OAuth parts) loads with the first HTTP
  // connection: a process whose servers are all stdio never needs it.
  const { StreamableHttpClientTransport } = await import('./transport/http-client-transport.js');
  try {
    const client = attempt.make();
    const transport = new StreamableHttpClientTransport(url, {
      headers,
      onRelatedRequest: attempt.onRelatedRequest,
      onSessionDoubt,
      ...(oauth === undefined ? {} : { auth: reporting(oauth, attempt.onAuthRequired) }),
    });
    await closingOnAbort(transport, signal, () =>
      client.connect(transport, connectOptions(attempt)),
    );
    return client;
  } catch (streamableError) {
    // The older transport carries no OAuth: a protected server gets no fallback.
    if (attempt.isClosed() || attempt.modernOnly === true || oauth !== undefined) {
      throw streamableError;
    }
    // Servers that predate Streamable HTTP speak the older HTTP+SSE transport.
    const client = attempt.make();
    // Servers on HTTP+SSE predate 2026-07-28: no probe.
    client.setVersionNegotiation(undefined);
    const { requestScopedFetch } = await import('./transport/scoped-fetch.js');
    const fetch = requestScopedFetch({
      onStreamError: (_requestId, error) => {
        onSessionDoubt(error);
      },
    });
    try {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the fallback the spec asks clients to keep
      const transport = new SSEClientTransport(url, { requestInit: { headers }, fetch });
      await client.connect(transport, { timeout, signal });
      return client;
    } catch {
      await client.close().catch(() => undefined);
      throw streamableError;
    }
  }
}
