// The limit on wrong tokens behind the fleet's HAProxy recipe: every request reaches the gateway
// from the balancer's address, yet one client that guesses is refused and the others are not,
// because the recipe sends X-Forwarded-For and the gateway trusts the balancer (trustedProxies).
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeFrom, toolCountWith } from './testing/auth-guesses.js';
import { binCommand, listeningUrl, startCli, stop } from './testing/cli-process.js';
import { freePorts, hasHaproxy, startHaproxy, type Haproxy } from './testing/fleet.js';

const inCi = process.env.CI === 'true';
const TOKEN = 'auth-limit-proxy-token-0123456789';

const initialize = async (url: URL, from: string, token: string) =>
  (await initializeFrom(url, from, token)).status;

describe.runIf(hasHaproxy() || inCi)('wrong tokens behind the HAProxy recipe', () => {
  let dir: string;
  let gateway: ChildProcess | undefined;
  let haproxy: Haproxy | undefined;
  let url: URL;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolplane-auth-proxy-'));
    const [front = 0, port = 0] = await freePorts(2);
    await writeFile(
      join(dir, 'toolplane.config.json'),
      JSON.stringify({
        store: 'memory',
        builtins: true,
        http: {
          allowedHosts: [`127.0.0.1:${String(front)}`],
          trustedProxies: ['127.0.0.1'],
          authFailureLimit: { maxFailures: 3 },
        },
      }),
    );
    gateway = startCli(['serve', '--http', '--port', String(port)], {
      command: binCommand,
      cwd: dir,
      env: { TOOLPLANE_TOKEN: TOKEN },
    });
    await listeningUrl(gateway);
    haproxy = await startHaproxy(dir, { port: front, servers: [{ name: 'gw', port }] });
    url = haproxy.url;
    // Until HAProxy routes to the instance (its first health check), bounded.
    const deadline = Date.now() + 20_000;
    while ((await initialize(url, '127.0.0.9', TOKEN)) !== 200) {
      if (Date.now() > deadline) throw new Error('HAProxy never routed to the gateway');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  afterAll(async () => {
    await haproxy?.stop();
    if (gateway !== undefined) await stop(gateway);
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses the client that guesses and serves the others', async () => {
    for (let i = 0; i < 3; i++)
      expect(await initialize(url, '127.0.0.2', `wrong-${String(i)}`)).toBe(401);
    expect(await initialize(url, '127.0.0.2', TOKEN)).toBe(429);
    expect(await initialize(url, '127.0.0.3', TOKEN)).toBe(200);
    expect(await toolCountWith(url, TOKEN)).toBeGreaterThan(0);
  });
});
