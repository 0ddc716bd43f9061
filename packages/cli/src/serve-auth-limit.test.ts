import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildApp } from '@toolplane/dashboard/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
} from './testing/cli-process.js';

// `toolplane serve --http` with a static token, hammered with wrong ones: the source that
// guesses is refused at the MCP endpoint and the dashboard's login alike; others are served.

const tempDir = useTempDir('serve-auth-limit');
const TOKEN = 'serve-auth-limit-token-0123456789';
const children: ChildProcess[] = [];

beforeAll(async () => {
  await buildApp();
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => stop(child)));
});

async function serve(http: Record<string, unknown>): Promise<URL> {
  const config = join(tempDir(), `config-${String(children.length)}.json`);
  await writeFile(config, JSON.stringify({ store: 'memory', builtins: true, http }));
  const child = startCli([...SERVE_HTTP, '--config', config], {
    command: binCommand,
    cwd: tempDir(),
    env: { TOOLPLANE_TOKEN: TOKEN },
  });
  children.push(child);
  return listeningUrl(child);
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  },
});

/** A POST to `url` from `from` (a loopback address: a source of its own). */
function post(
  url: URL,
  from: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const mcp = (url: URL, from: string, token: string) =>
  post(url, from, INITIALIZE, { authorization: `Bearer ${token}` });

const login = (url: URL, from: string, token: string) => {
  const at = new URL('/ui/api/login', url);
  return post(at, from, JSON.stringify({ token }), { origin: at.origin });
};

describe('toolplane serve --http: failed authentications', () => {
  it('refuses a guessing source at /mcp and the dashboard login, and serves others', async () => {
    const url = await serve({ authFailureLimit: { maxFailures: 3 } });
    expect((await mcp(url, '127.0.0.2', 'wrong-1')).status).toBe(401);
    expect((await login(url, '127.0.0.2', 'wrong-2')).status).toBe(401);
    expect((await mcp(url, '127.0.0.2', 'wrong-3')).status).toBe(401);
    for (const refused of [
      await mcp(url, '127.0.0.2', TOKEN),
      await login(url, '127.0.0.2', TOKEN),
    ]) {
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }
    expect((await mcp(url, '127.0.0.3', TOKEN)).status).toBe(200);
    expect((await login(url, '127.0.0.3', TOKEN)).status).toBe(200);
    const client = new Client({ name: 'serve-auth-limit-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('limits nothing with authFailureLimit: false', async () => {
    const url = await serve({ authFailureLimit: false });
    for (let i = 0; i < 15; i++) expect((await mcp(url, '127.0.0.2', 'wrong')).status).toBe(401);
    expect((await mcp(url, '127.0.0.2', TOKEN)).status).toBe(200);
  });
});
