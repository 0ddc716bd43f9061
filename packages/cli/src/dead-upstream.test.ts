import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureCommand, startHttpFixture } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';
import {
  exited,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';

const dir = useTempDir('dead-upstream');

async function status(endpoint: URL): Promise<string> {
  const answer = await fetch(new URL('/healthz', endpoint));
  return ((await answer.json()) as { status: string }).status;
}

describe('an HTTP upstream that ends under a running gateway', () => {
  // The stateless server has no GET stream to lose, only the connection its last answer used.
  // The last case is killed once idle: its kept-alive connection has closed (undici closes it
  // after 4 s), so only the gateway's pings can tell.
  it.each([
    ['SIGKILL', 'http', 0, 2_000],
    ['SIGTERM', 'http', 0, 2_000],
    ['SIGKILL', 'http-stateless', 0, 2_000],
    ['SIGKILL', 'http-stateless', 5_000, 3_000],
  ] as const)(
    'turns /healthz from ok to degraded in time (%s, %s, idle %d ms)',
    async (signal, mode, idleMs, withinMs) => {
      const fixture = await startHttpFixture({ server: fixtureCommand(mode) });
      const config = join(dir(), 'toolplane.config.json');
      await writeFile(
        config,
        JSON.stringify({
          mcpServers: { remote: { url: fixture.url.href } },
          store: 'memory',
          pingIntervalMs: 1_000,
        }),
      );
      const child = startCli([...SERVE_HTTP, '--config', config], { cwd: dir() });
      try {
        const [endpoint] = await Promise.all([
          listeningUrl(child),
          waitForStderr(child, /remote connected/),
        ]);
        expect(await status(endpoint)).toBe('ok');
        await new Promise((resolve) => setTimeout(resolve, idleMs));
        expect(await status(endpoint)).toBe('ok');
        process.kill(fixture.pid, signal);
        const killedAt = performance.now();
        while ((await status(endpoint)) === 'ok') {
          expect(performance.now() - killedAt).toBeLessThan(withinMs);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        child.kill('SIGTERM');
        await exited(child);
        await fixture.close();
      }
    },
  );
});
