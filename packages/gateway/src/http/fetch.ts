import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A web `Request` for a node:http request whose body the caller has read already (`body`, as
 * text; none when it was parsed and is handed over as such), with the request's headers and,
 * when `res` is given, a signal that fires if the client goes away before its answer is sent.
 */
export function toWebRequest(
  req: IncomingMessage,
  url: URL,
  options: { body?: string; res?: ServerResponse } = {},
): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else headers.set(name, value);
  }
  const { body, res } = options;
  let signal: AbortSignal | undefined;
  if (res !== undefined) {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    signal = controller.signal;
  }
  const method = req.method ?? 'GET';
  return new Request(url, {
    method,
    headers,
    ...(signal === undefined ? {} : { signal }),
    ...(body === undefined || method === 'GET' || method === 'HEAD' ? {} : { body }),
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
