import { randomUUID } from 'node:crypto';
import { createResourceServer } from '@toolplane/oauth';
import { startAuthorizationServer, type TestAuthorizationServer } from '@toolplane/oauth/testing';
import { createToolkit, defineTool } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway } from '../http/serve.js';
import { INITIALIZE_BODY, POST_HEADERS } from '../testing/raw-client.js';

// Sessions under OAuth, end to end: a real authorization server (oidc-provider) minting tokens
// for two clients, the real gateway over HTTP. A session is its opener's: anyone else presenting
// its ID is answered as for a session that does not exist.

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

const resources: Record<string, string[]> = {};
let as: TestAuthorizationServer;
let running: RunningToolkit;
let gateway: HttpGateway;
let alice: string;
let mallory: string;

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
const now = () => Math.floor(Date.now() / 1000);

function headers(token: string, session?: string): Record<string, string> {
  return {
    ...POST_HEADERS,
    authorization: `Bearer ${token}`,
    ...(session === undefined
      ? {}
      : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
  };
}

/** Sends a request and reads its whole answer (a GET stream is cut once its status is known). */
async function send(
  method: 'POST' | 'GET' | 'DELETE',
  token: string,
  session?: string,
  body?: string,
): Promise<{ status: number; session: string | null; text: string }> {
  const gone = new AbortController();
  const answer = await fetch(gateway.url, {
    method,
    headers: headers(token, session),
    signal: gone.signal,
    ...(body === undefined ? {} : { body }),
  });
  const opened = answer.headers.get('mcp-session-id');
  if (method === 'GET' && answer.status === 200) {
    gone.abort();
    return { status: answer.status, session: opened, text: '' };
  }
  return { status: answer.status, session: opened, text: await answer.text() };
}

async function open(token: string): Promise<string> {
  const init = await send('POST', token, undefined, INITIALIZE_BODY);
  expect(init.status).toBe(200);
  expect(init.session).not.toBeNull();
  return init.session ?? '';
}

beforeAll(async () => {
  as = await startAuthorizationServer({ resources, clients: 2 });
  running = await runToolkit(createToolkit({ tools: [echo] }));
  gateway = await serveHttp(running.toolkit, {
    port: 0,
    auth: createResourceServer({ issuer: as.issuer, scopes: { all: { namespaces: ['*'] } } }),
  });
  resources[gateway.url.href] = ['all'];
  const mint = async (client: number) =>
    (await as.token({ resource: gateway.url.href, scope: 'all', client: as.clients[client] }))
      .accessToken;
  alice = await mint(0);
  mallory = await mint(1);
});

afterAll(async () => {
  await gateway.close();
  await running.stop();
  await as.close();
});

describe('serveHttp with auth: a session is its opener’s', () => {
  it('answers another caller presenting a live session’s ID with 404 on POST, GET and DELETE', async () => {
    const session = await open(alice);
    const unknown = await send('POST', mallory, randomUUID(), LIST);
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const stolen = await send(method, mallory, session, method === 'POST' ? LIST : undefined);
      expect(stolen.status).toBe(404);
      // Exactly as a session that never was: nothing about the session is given away.
      expect(stolen.text).toBe(unknown.text);
    }
    // Another initialize in the session: refused as unknown too, not as "already initialized".
    expect((await send('POST', mallory, session, INITIALIZE_BODY)).status).toBe(404);
    // The session is untouched: its opener still uses it, its GET stream included.
    const own = await send('POST', alice, session, LIST);
    expect(own.status).toBe(200);
    expect(own.text).toContain('builtin__echo');
    expect((await send('GET', alice, session)).status).toBe(200);
    expect((await send('DELETE', alice, session)).status).toBe(200);
    expect((await send('POST', alice, session, LIST)).status).toBe(404);
  });

  it('still refuses another caller after many other sessions have come and gone', async () => {
    const session = await open(alice);
    const before = gateway.sessionCount;
    for (let i = 0; i < 150; i++) {
      // Sessions opened and closed by both callers, and IDs no session has.
      const other = await open(i % 2 === 0 ? mallory : alice);
      expect((await send('DELETE', i % 2 === 0 ? mallory : alice, other)).status).toBe(200);
      expect((await send('GET', mallory, randomUUID())).status).toBe(404);
    }
    // What a closed session leaves behind: nothing (the tie went with it).
    expect(gateway.sessionCount).toBe(before);
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const stolen = await send(method, mallory, session, method === 'POST' ? LIST : undefined);
      expect(stolen.status).toBe(404);
    }
    expect((await send('POST', alice, session, LIST)).status).toBe(200);
    expect((await send('DELETE', alice, session)).status).toBe(200);
  });

  it('tells apart two callers of one client by their subject', async () => {
    const claims = (sub: string) => ({
      iss: as.issuer,
      aud: gateway.url.href,
      sub,
      client_id: as.clients[0]?.clientId,
      scope: 'all',
      iat: now(),
      exp: now() + 300,
    });
    const bob = await as.sign(claims('bob'));
    const carol = await as.sign(claims('carol'));
    const session = await open(bob);
    expect((await send('POST', carol, session, LIST)).status).toBe(404);
    expect((await send('POST', bob, session, LIST)).status).toBe(200);
    expect((await send('DELETE', bob, session)).status).toBe(200);
  });
});

describe('serveHttp with auth: a token that names no one', () => {
  it('refuses a token with neither sub nor client_id: 401 invalid_token, saying why', async () => {
    const nobody = await as.sign({
      iss: as.issuer,
      aud: gateway.url.href,
      scope: 'all',
      iat: now(),
      exp: now() + 300,
    });
    const before = gateway.sessionCount;
    const init = await send('POST', nobody, undefined, INITIALIZE_BODY);
    expect(init.status).toBe(401);
    expect(init.session).toBeNull();
    expect(init.text).toContain('neither a subject (sub) nor a client (client_id)');
    expect(gateway.sessionCount).toBe(before);
    const challenge = await fetch(gateway.url, {
      method: 'POST',
      headers: headers(nobody),
      body: LIST,
    });
    await challenge.text();
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // An empty subject names no one either.
    const empty = await as.sign({
      iss: as.issuer,
      aud: gateway.url.href,
      sub: '',
      scope: 'all',
      iat: now(),
      exp: now() + 300,
    });
    expect((await send('POST', empty, undefined, INITIALIZE_BODY)).status).toBe(401);
  });

  it('accepts a token that names only its client (client credentials)', async () => {
    const machine = await as.sign({
      iss: as.issuer,
      aud: gateway.url.href,
      client_id: 'machine',
      scope: 'all',
      iat: now(),
      exp: now() + 300,
    });
    const session = await open(machine);
    expect((await send('POST', machine, session, LIST)).status).toBe(200);
    expect((await send('POST', alice, session, LIST)).status).toBe(404);
    expect((await send('DELETE', machine, session)).status).toBe(200);
  });
});
