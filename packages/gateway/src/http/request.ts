import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type RequestId,
} from '@modelcontextprotocol/server';
import { answerIdOf, isRequestId } from '@toolplane/toolmodel/wire';
import { MAX_BATCH_SIZE } from './transport.js';
import { isJsonRpcMessage } from '../jsonrpc.js';

/** A request refused with an HTTP status and a JSON-RPC error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    /** The ID of the request refused, when it can be told. */
    readonly id: RequestId | null = null,
    /** Headers the refusal carries (what the server would take instead, say). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** A POST's body: its text, and that text parsed as JSON. */
export interface JsonBody {
  readonly text: string;
  readonly value: unknown;
}

/**
 * The request's body parsed as JSON, with its text (which the parse may have read a number of
 * inexactly; see `inexactParams`). Read with plain stream events: an async iterator over the
 * request cost every call several ticks and promises, and a body of its declared length is parsed
 * without waiting for the stream's end. A body over `maxBytes` is refused as soon as it is seen
 * (the rest is discarded by the server, never held); one cut short fails.
 */
export function readJson(req: IncomingMessage, maxBytes: number): Promise<JsonBody> {
  const tooLarge = (): HttpError =>
    new HttpError(
      413,
      ProtocolErrorCode.InvalidRequest,
      `the body is larger than ${maxBytes} bytes`,
    );
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: HttpError): void => {
      req.off('data', onData).off('end', onEnd).off('error', onBroken).off('close', onBroken);
      if (error !== undefined) {
        reject(error);
        return;
      }
      const text = Buffer.concat(chunks, size).toString('utf8');
      try {
        resolve({ text, value: JSON.parse(text) as unknown });
      } catch {
        reject(new HttpError(400, ProtocolErrorCode.ParseError, 'the body is not valid JSON'));
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        settle(tooLarge());
        return;
      }
      chunks.push(chunk);
      // A body of the length declared is complete; its 'end' would only come a tick or two later.
      if (size === declared) settle();
    };
    const onEnd = (): void => {
      settle();
    };
    const onBroken = (): void => {
      settle(
        new HttpError(400, ProtocolErrorCode.ParseError, 'the body ended before it was complete'),
      );
    };
    req.on('data', onData).once('end', onEnd).once('error', onBroken).once('close', onBroken);
  });
}

/**
 * The path a request is for, as HTTP reads its target: an origin-form target's path is all of it
 * up to `?` (`//host/ui/` is the path `//host/ui/`, not `/ui/` on another host, as a base-relative
 * URL would read it), dot segments resolved; an absolute-form target's is its URL's.
 *
 * @throws {HttpError} 400 for any other target (`*`, an unparseable URL).
 */
export function requestPath(target: string): string {
  try {
    if (target.startsWith('/')) return new URL(`http://gateway${target}`).pathname;
    const url = new URL(target);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.pathname;
  } catch {
    // Refused below, as any target that names no path.
  }
  throw new HttpError(
    400,
    ProtocolErrorCode.InvalidRequest,
    'the request target is not a path (send an origin-form target such as /mcp)',
  );
}

export function finished(res: ServerResponse): Promise<void> {
  if (res.writableEnded || res.destroyed) return Promise.resolve();
  return new Promise((resolve) =>
    res.once('close', () => {
      resolve();
    }),
  );
}

export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/**
 * A POST's messages, and whether they came as a batch (answered as one, too). A batch's elements
 * may include some that are not JSON-RPC messages: the transport refuses each in the answer.
 */
export interface Post {
  readonly messages: readonly unknown[];
  readonly batch: boolean;
  /** Why a request among them is refused for an integer its params lost (see `inexactParams`). */
  readonly inexact?: ((message: unknown) => string | undefined) | undefined;
}

export function toPost(body: unknown, inexact?: Post['inexact']): Post {
  const batch = Array.isArray(body);
  const messages: unknown[] = batch ? body : [body];
  if (messages.length === 0 || messages.length > MAX_BATCH_SIZE) {
    throw new HttpError(
      400,
      ProtocolErrorCode.InvalidRequest,
      `a batch holds 1 to ${MAX_BATCH_SIZE} messages, this one ${messages.length}`,
    );
  }
  if (!batch && !isJsonRpcMessage(body)) {
    throw new HttpError(
      400,
      ProtocolErrorCode.InvalidRequest,
      'the body is not a JSON-RPC 2.0 message',
      answerIdOf(body),
    );
  }
  const ids = messages.flatMap((m) =>
    isJsonRpcMessage(m) && 'method' in m && 'id' in m ? [m.id] : [],
  );
  if (new Set(ids).size !== ids.length) {
    throw new HttpError(
      400,
      ProtocolErrorCode.InvalidRequest,
      "a batch's request IDs must be unique",
    );
  }
  return { messages, batch, inexact };
}

/**
 * Refuses a message whose ID is a number no answer could carry back as sent (an integer past
 * 2^53 - 1, which JSON.parse reads as a nearby one), before either era's handling: JSON-RPC
 * answers an ID it cannot read with `null`, never with an altered one a client cannot match.
 * The stdio transport refuses the same IDs (both go by `isRequestId`).
 *
 * @throws {HttpError} 400, -32600 with ID `null`.
 */
export function checkRequestId(body: unknown): void {
  const id = (body as { id?: unknown } | null)?.id;
  if (typeof id === 'number' && !isRequestId(id)) {
    throw new HttpError(
      400,
      ProtocolErrorCode.InvalidRequest,
      'the request ID is a number that cannot be answered exactly (a JSON-RPC ID here is a string or an integer from -(2^53 - 1) to 2^53 - 1); send it as a string',
    );
  }
}

export function accepts(req: IncomingMessage, type: string): boolean {
  // A list of media ranges; MCP clients name both types outright, so a substring check fits.
  return req.headers.accept?.includes(type) === true;
}

/**
 * A POST must accept JSON and SSE answers, and send JSON with no content coding: a compressed
 * body read as plain JSON would be a parse error that hides the real reason, so it is refused
 * with 415 and `Accept-Encoding: identity`, as HTTP asks of a server refusing a coding.
 */
export function checkPostHeaders(req: IncomingMessage): void {
  if (!accepts(req, 'application/json') || !accepts(req, 'text/event-stream')) {
    throw new HttpError(
      406,
      ProtocolErrorCode.InvalidRequest,
      'a POST must accept both application/json and text/event-stream',
    );
  }
  const type = req.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, ProtocolErrorCode.InvalidRequest, 'the body must be application/json');
  }
  const codings = (req.headers['content-encoding'] ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 0) {
    throw new HttpError(
      415,
      ProtocolErrorCode.InvalidRequest,
      `the body's content coding (${codings.join(', ')}) is not supported; the gateway takes an identity body: send it uncompressed, without Content-Encoding`,
      null,
      { 'accept-encoding': 'identity' },
    );
  }
}

export function checkProtocolVersion(req: IncomingMessage): void {
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new HttpError(
      400,
      ProtocolErrorCode.InvalidRequest,
      `unsupported MCP-Protocol-Version ${JSON.stringify(version)}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
}
