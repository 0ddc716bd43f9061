import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolError } from '@toolplane/toolkit';
import { statusOf } from './error-status.js';

/**
 * The Content-Security-Policy of every answer: scripts, styles and connections from this origin
 * only, no inline script or style, images also as `data:` (tool results carry them so), no
 * framing, no form posts elsewhere.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The headers every dashboard answer carries. */
export function secureHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
}

/** An error answer with an HTTP status and a `ToolError` code, as JSON. */
export class UiError extends ToolError {
  readonly status: number;

  constructor(status: number, code: ToolError['code'], message: string) {
    super(code, message);
    this.status = status;
  }
}

/** Writes `body` as JSON, never cached. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * What a failure that is not a `ToolError` answers (a bug, or a part that failed in its own
 * words): its own message may name paths, hosts or credentials of the machine, so it goes to the
 * log and the answer says where to look.
 */
export const INTERNAL_ERROR_MESSAGE =
  "the dashboard failed on an unexpected error; the gateway's log has the details";

/**
 * Writes a failure as `{ error: { code, message } }`, with the status a {@link UiError} carries or
 * {@link statusOf} gives its code; anything else as 500 `internal` with
 * {@link INTERNAL_ERROR_MESSAGE}.
 */
export function sendError(res: ServerResponse, error: unknown): void {
  if (error instanceof UiError) {
    sendJson(res, error.status, { error: { code: error.code, message: error.message } });
    return;
  }
  if (ToolError.isInstance(error)) {
    sendJson(res, statusOf(error), { error: { code: error.code, message: error.message } });
    return;
  }
  sendJson(res, 500, { error: { code: 'internal', message: INTERNAL_ERROR_MESSAGE } });
}

/**
 * Reads a JSON object body of at most `max` bytes.
 *
 * @throws {UiError} 415 `invalid_argument` for another content type (which also keeps plain HTML
 * forms of other sites out), 413 for a larger body (the rest of it is left unread: answer it on a
 * connection that then closes), 400 for one that is not a JSON object.
 */
export async function readJsonObject(
  req: IncomingMessage,
  max: number,
): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new UiError(415, 'invalid_argument', 'send the body as application/json');
  }
  const tooLarge = () =>
    new UiError(413, 'invalid_argument', `the body is over ${String(max)} bytes`);
  // A body declared too large is refused before any of it is read.
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw tooLarge();
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new UiError(400, 'invalid_argument', 'the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UiError(400, 'invalid_argument', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/**
 * Refuses a state-changing request whose `Origin` is not this very server (CSRF): browsers send
 * `Origin` on every POST, so one without it, or naming another site, gets 403.
 *
 * @throws {UiError} 403 `unauthorized`.
 */
export function checkSameOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (origin === undefined || host === undefined) {
    throw new UiError(403, 'unauthorized', 'a state-changing request needs an Origin header');
  }
  if (origin !== `http://${host}` && origin !== `https://${host}`) {
    throw new UiError(403, 'unauthorized', `Origin ${JSON.stringify(origin)} is not this server`);
  }
}
