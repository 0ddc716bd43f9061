import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  binCommand,
  listeningUrl,
  SERVE_HTTP,
  startCli,
  stop,
  useTempDir,
  waitForStderr,
} from './testing/cli-process.js';
import { hasPostgres, startPostgres, type Postgres } from './testing/fleet.js';
import { holdLock } from './testing/postgres-lock.js';

// A server a reload failed to add (here: its OAuth credentials could not be opened while the
// store's tables were locked) was counted as running: every later reload, SIGHUP included, found
// "nothing to change", and the server stayed missing until its entry in the file changed.
const dir = useTempDir('reload-retry');

describe.runIf(hasPostgres())('serve, a server whose add failed in a reload', () => {
  let postgres: Postgres | undefined;
  let gateway: ChildProcess | undefined;
  afterAll(async () => {
    if (gateway !== undefined) await stop(gateway);
    await postgres?.stop();
  }, 60_000);

  it('is added by the next SIGHUP once what failed is back', { timeout: 120_000 }, async () => {
    postgres = await startPostgres();
    // A short statement timeout, so a lock wait fails fast.
    const url = new URL(postgres.url);
    url.searchParams.set('statement_timeout', '300');
    const file = join(dir(), 'toolplane.config.json');
    const base = { builtins: false, store: { postgres: url.href } };
    await writeFile(file, JSON.stringify(base));
    gateway = startCli([...SERVE_HTTP, '--config', file], {
      cwd: dir(),
      command: binCommand,
      env: { TOOLPLANE_TOKEN_KEY: randomBytes(32).toString('base64') },
    });
    await listeningUrl(gateway);

    // The credential store is opened with the first server that logs in: its schema check
    // waits on the locked table, past the statement timeout.
    const lock = await holdLock(postgres.url, 'toolplane.migrations');
    try {
      const failed = waitForStderr(gateway, /reports: not added: (.*)/);
      await writeFile(
        file,
        JSON.stringify({
          ...base,
          mcpServers: {
            reports: {
              url: 'http://127.0.0.1:9/mcp',
              auth: { grant: 'client_credentials', clientId: 'gateway', clientSecret: 'unused' },
            },
          },
        }),
      );
      const [, why = ''] = await failed;
      expect(why).toContain('SIGHUP');
    } finally {
      await lock.release();
    }

    const reloaded = waitForStderr(gateway, /config reloaded from [^:]+: (.*)/);
    gateway.kill('SIGHUP');
    const [, changes = ''] = await reloaded;
    expect(changes).toBe('+reports');
  });
});
