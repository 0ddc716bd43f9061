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
  // No call is made after the kill: /healthz turns by the gateway noticing on its own (how soon is
  // not asserted here; the bound only keeps a regression from hanging the run).
  it.each([
    ['SIGKILL', 'http', false],
    ['SIGTERM', 'http', false],
    ['SIGKILL', 'http-stateless', false],
    ['SIGKILL', 'http-stateless', true],
  ] as const)(
    'turns /healthz from ok to degraded with no call made (%s, %s, idle past keep-alive: %s)',
    async (signal, mode, idle) => {
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
        // The gateway's kept-alive connection, idle past its keep-alive time, closes.
        if (idle) await fixture.connectionsClosed();
        expect(await status(endpoint)).toBe('ok');
        process.kill(fixture.pid, signal);
        await expect.poll(() => status(endpoint), { timeout: 15_000, interval: 20 }).not.toBe('ok');
      } finally {
        child.kill('SIGTERM');
        await exited(child);
        await fixture.close();
      }
    },
  );
});
