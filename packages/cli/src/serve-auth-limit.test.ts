import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
import { initializeFrom, loginFrom, toolCountWith } from './testing/auth-guesses.js';

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

const mcp = initializeFrom;
const login = loginFrom;

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
    expect(await toolCountWith(url, TOKEN)).toBeGreaterThan(0);
  });

  it('limits nothing with authFailureLimit: false', async () => {
    const url = await serve({ authFailureLimit: false });
    for (let i = 0; i < 15; i++) expect((await mcp(url, '127.0.0.2', 'wrong')).status).toBe(401);
    expect((await mcp(url, '127.0.0.2', TOKEN)).status).toBe(200);
  });
});
