import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardGateway, type DashboardGateway } from '../testing/dashboard-gateway.js';
import { loginCookie } from '../testing/login.js';

const TOKEN = 'dashboard-requests-token-0123456789';
const OVER = 1024 * 1024 + 10;

/**
 * Writes `head`, then `body` in pieces, on one raw connection, and resolves with everything the
 * server sent once it closes the connection.
 */
function exchange(url: URL, head: string, body: Buffer[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(received);
    });
    socket.write(head);
    for (const piece of body) socket.write(piece);
  });
}

// A real gateway with the fixture server behind it, asked over raw HTTP/1.1 connections.
describe('the dashboard over one kept-alive connection', () => {
  let served: DashboardGateway;
  let cookie: string;

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN);
    cookie = await loginCookie(served.ui, TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  const head = (length: string) =>
    [
      'POST /ui/api/call HTTP/1.1',
      `Host: ${served.ui.host}`,
      `Origin: ${served.ui.origin}`,
      `Cookie: ${cookie}`,
      'Content-Type: application/json',
      length,
      '',
      '',
    ].join('\r\n');
  const big = Buffer.from(
    JSON.stringify({ tool: 'fixture:echo', arguments: { text: 'a'.repeat(OVER) } }),
  );

  it('answers a body declared too large with 413 and closes the connection', async () => {
    const answer = await exchange(served.ui, head(`Content-Length: ${String(big.length)}`), [big]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"code":"invalid_argument"');
  });

  it('answers a chunked body that grows too large with 413 and closes the connection', async () => {
    const chunks: Buffer[] = [];
    for (let at = 0; at < big.length; at += 64 * 1024) {
      const piece = big.subarray(at, at + 64 * 1024);
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('0\r\n\r\n'));
    const answer = await exchange(served.ui, head('Transfer-Encoding: chunked'), chunks);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
  });
});

// Behind a proxy that ends TLS the gateway hears plain HTTP; the browser's Origin is HTTPS.
describe('the session cookie', () => {
  let served: DashboardGateway;

  beforeAll(async () => {
    served = await startDashboardGateway(TOKEN);
  });
  afterAll(async () => {
    await served.close();
  });

  const cookieFor = async (route: string, origin: string, cookie = ''): Promise<string> => {
    const response = await fetch(new URL(`api/${route}`, served.ui), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, cookie },
      body: JSON.stringify({ token: TOKEN }),
    });
    expect(response.status).toBe(200);
    return response.headers.get('set-cookie') ?? '';
  };

  it('is Secure when the login comes from an HTTPS page, and only then', async () => {
    const https = `https://${served.ui.host}`;
    const secure = await cookieFor('login', https);
    expect(secure.split('; ')).toEqual(expect.arrayContaining(['HttpOnly', 'Secure']));
    const session = secure.split(';')[0] ?? '';
    expect((await cookieFor('logout', https, session)).split('; ')).toContain('Secure');
    expect((await cookieFor('login', served.ui.origin)).split('; ')).not.toContain('Secure');
  });
});
