import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeHttpFetch } from './node-fetch.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A real server on 127.0.0.1 whose routes the tests define. */
describe('nodeHttpFetch', () => {
  let server: Server;
  let base: URL;
  const seen: Seen[] = [];
  const sockets = new Set<unknown>();
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void> =
    {
      '/json': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-twice': ['a', 'b'] });
        res.end('{"ok":true}');
      },
      '/echo': (req, res, body) => {
        res.writeHead(201, 'Made', { 'content-type': req.headers['content-type'] ?? 'none' });
        res.end(body);
      },
      '/empty': (_req, res) => {
        res.writeHead(204).end();
      },
      '/sse': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        setTimeout(() => res.end('data: two\n\n'), 50);
      },
      '/hang': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: started\n\n');
      },
      '/never': () => undefined,
      '/see-other': (_req, res) => {
        res.writeHead(303, { location: '/echo' }).end();
      },
      '/temporary': (_req, res) => {
        res.writeHead(307, { location: `${base.origin}/echo` }).end();
      },
      '/loop': (_req, res) => {
        res.writeHead(302, { location: '/loop' }).end();
      },
    };

  beforeAll(async () => {
    server = createServer((req, res) => {
      sockets.add(req.socket);
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const route = routes[path];
        if (route === undefined) res.writeHead(404).end();
        else route(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const url = (path: string) => new URL(path, base);

  it('answers like fetch: status, headers, JSON body', async () => {
    const response = await nodeHttpFetch(url('/json'));
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-twice')).toBe('a, b');
    expect(await response.json()).toEqual({ ok: true });
  });

  it('sends a string, bytes or form body with its length and a default content type', async () => {
    const text = await nodeHttpFetch(url('/echo'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-custom': 'yes' },
      body: '{"é":1}',
    });
    expect(text.status).toBe(201);
    expect(text.statusText).toBe('Made');
    expect(await text.text()).toBe('{"é":1}');
    const last = seen.at(-1);
    expect(last?.headers['content-length']).toBe(String(Buffer.byteLength('{"é":1}')));
    expect(last?.headers['x-custom']).toBe('yes');

    const form = await nodeHttpFetch(url('/echo'), {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(form.headers.get('content-type')).toBe(
      'application/x-www-form-urlencoded;charset=UTF-8',
    );
    expect(await form.text()).toBe('grant_type=client_credentials');

    const bytes = await nodeHttpFetch(url('/echo'), {
      method: 'PUT',
      body: new TextEncoder().encode('raw'),
    });
    expect(await bytes.text()).toBe('raw');
  });

  it('gives no body for 204 and HEAD', async () => {
    const empty = await nodeHttpFetch(url('/empty'));
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const head = await nodeHttpFetch(url('/json'), { method: 'HEAD' });
    expect(head.body).toBeNull();
  });

  it('streams a body as it arrives', async () => {
    const response = await nodeHttpFetch(url('/sse'));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: one\n\n');
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += decoder.decode(chunk.value);
    }
    expect(rest).toBe('data: two\n\n');
  });

  it('rejects with the reason when aborted before, while waiting, or errors the body after', async () => {
    const before = AbortSignal.abort(new Error('not wanted'));
    await expect(nodeHttpFetch(url('/json'), { signal: before })).rejects.toThrow('not wanted');

    const waiting = new AbortController();
    const pending = nodeHttpFetch(url('/never'), { signal: waiting.signal });
    setTimeout(() => {
      waiting.abort(new Error('gave up'));
    }, 20);
    await expect(pending).rejects.toThrow('gave up');

    const reading = new AbortController();
    const response = await nodeHttpFetch(url('/hang'), { signal: reading.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const next = reader.read();
    reading.abort(new Error('stop reading'));
    await expect(next).rejects.toThrow('stop reading');
  });

  it('follows redirects as fetch does, or leaves them when told', async () => {
    const seeOther = await nodeHttpFetch(url('/see-other'), { method: 'POST', body: 'gone' });
    expect(seeOther.status).toBe(201);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', body: '' });

    const temporary = await nodeHttpFetch(url('/temporary'), { method: 'POST', body: 'kept' });
    expect(await temporary.text()).toBe('kept');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: 'kept' });

    const manual = await nodeHttpFetch(url('/see-other'), { redirect: 'manual' });
    expect(manual.status).toBe(303);
    expect(manual.headers.get('location')).toBe('/echo');

    await expect(nodeHttpFetch(url('/see-other'), { redirect: 'error' })).rejects.toThrow(
      TypeError,
    );
    await expect(nodeHttpFetch(url('/loop'))).rejects.toThrow(TypeError);
  });

  it('fails a refused connection as fetch does: TypeError with the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await nodeHttpFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    await expect(nodeHttpFetch('ftp://127.0.0.1/')).rejects.toThrow(TypeError);
  });

  it('keeps connections alive between requests', async () => {
    sockets.clear();
    for (let i = 0; i < 5; i++) await (await nodeHttpFetch(url('/json'))).text();
    expect(sockets.size).toBe(1);
  });

  it('hands what it does not cover to the global fetch', async () => {
    const request = new Request(url('/echo'), { method: 'POST', body: 'via Request' });
    expect(await (await nodeHttpFetch(request)).text()).toBe('via Request');
    const blob = await nodeHttpFetch(url('/echo'), { method: 'POST', body: new Blob(['blob']) });
    expect(await blob.text()).toBe('blob');
  });
});
