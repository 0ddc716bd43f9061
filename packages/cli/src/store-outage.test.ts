import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
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
import { connect } from './testing/fleet-clients.js';
import { hasPostgres, postgresBinDir, startPostgres, type Postgres } from './testing/fleet.js';
import { runInProcess } from './testing/in-process.js';
import { holdLock } from './testing/postgres-lock.js';

// `toolplane serve --http` on PostgreSQL while the store cannot answer: a prompt or resource the
// store may hold is answered with the store's failure, never "no such prompt".
const dir = useTempDir('store-outage');

describe.runIf(hasPostgres())('serve on a PostgreSQL store that cannot answer', () => {
  let postgres: Postgres | undefined;
  let gateway: ChildProcess | undefined;
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close();
    if (gateway !== undefined) await stop(gateway);
    await postgres?.stop();
  }, 60_000);

  it(
    'answers a prompt or resource the store may hold with store_error, and serves it once back',
    { timeout: 120_000 },
    async () => {
      postgres = await startPostgres();
      // A short statement timeout, so a lock wait fails fast.
      const url = new URL(postgres.url);
      url.searchParams.set('statement_timeout', '300');
      const file = join(dir(), 'toolplane.config.json');
      await writeFile(file, JSON.stringify({ builtins: false, store: { postgres: url.href } }));
      const prompt = join(dir(), 'greet.md');
      await writeFile(prompt, '---\ndescription: greets\n---\nHello {{ who }}\n');
      const added = await runInProcess(['prompts', 'add', prompt, '--config', file], {
        cwd: dir(),
      });
      expect(added.code).toBe(0);

      gateway = startCli([...SERVE_HTTP, '--config', file], { cwd: dir(), command: binCommand });
      client = await connect(await listeningUrl(gateway), 'modern');
      const greet = { name: 'user__greet', arguments: { who: 'you' } };

      const lock = await holdLock(postgres.url, 'toolplane.prompts, toolplane.resources');
      try {
        await expect(client.getPrompt(greet)).rejects.toMatchObject({
          code: -32603,
          data: { code: 'store_error' },
        });
        await expect(client.readResource({ uri: 'notes://style' })).rejects.toMatchObject({
          code: -32603,
          data: { code: 'store_error' },
        });
      } finally {
        await lock.release();
      }
      const rendered = await client.getPrompt(greet);
      expect(JSON.stringify(rendered.messages)).toContain('Hello you');
      // Back, a resource nobody added is missing, as before.
      await expect(client.readResource({ uri: 'notes://style' })).rejects.toMatchObject({
        code: -32602,
      });
    },
  );

  it(
    "says on stderr when the store's listening connections are lost",
    { timeout: 60_000 },
    async () => {
      if (postgres === undefined || gateway === undefined) throw new Error('needs the test above');
      const said = waitForStderr(gateway, /store the pin listener lost its connection/);
      const saidToo = waitForStderr(gateway, /store the PostgreSQL change listener lost/);
      await promisify(execFile)(join(postgresBinDir(), 'psql'), [
        postgres.url,
        '-X',
        '-c',
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name LIKE 'toolplane:listen:%' OR query = 'LISTEN "toolplane_pins"'`,
      ]);
      await said;
      await saidToo;
    },
  );
});
