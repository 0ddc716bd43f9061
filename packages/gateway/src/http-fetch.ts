import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A web `Request` for a node:http request whose body the caller has read already (`body`, as
 * text), with the request's headers and an abort signal that fires when the client goes away.
 */
export function toWebRequest(req: IncomingMessage, url: URL, body?: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else headers.set(name, value);
  }
  const controller = new AbortController();
  req.once('close', () => {
    if (!req.complete || req.socket.destroyed) controller.abort();
  });
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(body === undefined || req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
  });
}

/**
 * Writes a web `Response` to a node:http answer, streaming its body (an SSE stream as it comes),
 * and cancels the body when the client goes away.
 */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (response.body === null) {
    res.writeHead(response.status, headers).end();
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const gone = (): void => {
    void reader.cancel().catch(() => undefined);
  };
  res.once('close', gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The body failed or was cancelled: the answer ends where it got to.
  } finally {
    res.off('close', gone);
    res.end();
  }
}

/** Reads a node:http request's whole body as text (test and bench helpers; no limit). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
