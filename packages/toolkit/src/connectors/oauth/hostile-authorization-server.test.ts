import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError } from '@toolplane/toolmodel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectorOAuth } from './connector-oauth.js';
import { MemoryCredentialStore } from './credential-store.js';

// A protected MCP server whose authorization server misbehaves, over real HTTP on 127.0.0.1: the
// OAuth client must end each run with a typed error naming the request, never hang on it or
// read an endless answer.

type Mode =
  | 'silent-metadata'
  | 'silent-token'
  | 'endless-metadata'
  | 'bare-metadata'
  | 'html'
  | 'no-pkce'
  | 'echo-secret';
let mode: Mode = 'silent-metadata';
let server: Server;
let base = '';
const held: ServerResponse[] = [];

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', base);
    if (pathname.startsWith('/.well-known/oauth-protected-resource')) {
      json(res, { resource: `${base}/mcp`, authorization_servers: [`${base}/as`] });
      return;
    }
    if (pathname === '/.well-known/oauth-authorization-server/as') {
      if (mode === 'silent-metadata') {
        held.push(res); // never answered
        return;
      }
      if (mode === 'html') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('<html>sign in</html>');
        return;
      }
      if (mode === 'endless-metadata') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"issuer":"');
        const chunk = 'a'.repeat(64 * 1024);
        // Written as the client reads, until the client gives up and the socket closes.
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
        return;
      }
      json(res, {
        issuer: `${base}/as`,
        response_types_supported: ['code'],
        ...(mode === 'bare-metadata'
          ? {}
          : { authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token` }),
        ...(mode === 'no-pkce' ? {} : { code_challenge_methods_supported: ['S256'] }),
      });
      return;
    }
    if (pathname === '/token' && mode === 'silent-token') {
      held.push(res);
      return;
    }
    if (pathname === '/token' && mode === 'echo-secret') {
      // Repeats what the client sent, its secret included, as a careless server might.
      const basic = (req.headers.authorization ?? '').replace(/^Basic /, '');
      const sent = decodeURIComponent(Buffer.from(basic, 'base64').toString());
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_request', error_description: `refused ${sent}` }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

async function failure(run: Promise<unknown>): Promise<ToolError> {
  try {
    await run;
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

/**
 * A client-credentials OAuth client of the protected server. Its requests' deadline is long by
 * default, so that on a loaded machine only the tests of the deadline meet it; they pass a short
 * one.
 */
function machine(requestTimeoutMs = 30_000) {
  return createConnectorOAuth({
    server: 'shady',
    url: `${base}/mcp`,
    store: new MemoryCredentialStore(),
    grant: 'client_credentials',
    clientId: 'machine',
    clientSecret: 'machine-secret',
    requestTimeoutMs,
  });
}

describe('ConnectorOAuth against a misbehaving authorization server', () => {
  it('fails with timeout, naming the request, when the metadata never comes', async () => {
    mode = 'silent-metadata';
    const error = await failure(machine(300).login({ onAuthorizationUrl: () => undefined }));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('/.well-known/oauth-authorization-server/as');
  });

  it('fails with timeout when the token endpoint never answers, and keeps no secret in the message', async () => {
    mode = 'silent-token';
    const oauth = machine(300);
    const error = await failure(oauth.authorization());
    expect(error.code).toBe('timeout');
    expect(error.message).toContain(`${base}/token`);
    expect(error.message).not.toContain('machine-secret');
  });

  it('cancels a login whose signal aborts while the server says nothing', async () => {
    mode = 'silent-metadata';
    const controller = new AbortController();
    const login = machine(60_000).login({
      onAuthorizationUrl: () => undefined,
      signal: controller.signal,
    });
    await new Promise((resolve) => server.once('request', resolve));
    controller.abort();
    expect((await failure(login)).code).toBe('cancelled');
  });

  it('refuses an endless metadata document with resource_exhausted', async () => {
    mode = 'endless-metadata';
    const error = await failure(machine(10_000).authorization());
    expect(error.code).toBe('resource_exhausted');
  });

  it('names the request and the missing members of an incomplete metadata document', async () => {
    mode = 'bare-metadata';
    const error = await failure(machine().authorization());
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain('/.well-known/oauth-authorization-server/as');
    expect(error.message).toContain('token_endpoint');
    expect(error.message).not.toContain('\n');
  });

  it('says which answer is not JSON', async () => {
    mode = 'html';
    const error = await failure(machine().authorization());
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain('/.well-known/oauth-authorization-server/as is not JSON');
  });

  it('refuses to log in, before handing out the authorization URL, where the metadata lists no PKCE', async () => {
    mode = 'no-pkce';
    const oauth = createConnectorOAuth({
      server: 'shady',
      url: `${base}/mcp`,
      store: new MemoryCredentialStore(),
      clientId: 'public-client',
      requestTimeoutMs: 5_000,
    });
    const handed: URL[] = [];
    const error = await failure(
      oauth.login({
        onAuthorizationUrl: (url) => {
          handed.push(url);
        },
        timeoutMs: 5_000,
      }),
    );
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain('PKCE');
    expect(handed).toEqual([]);
  });

  it('keeps a secret the server repeats in its error out of the error', async () => {
    mode = 'echo-secret';
    const error = await failure(machine().authorization());
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain('invalid_request');
    expect(error.message).not.toContain('machine-secret');
    expect(String((error as { cause?: unknown }).cause)).not.toContain('machine-secret');
  });
});
