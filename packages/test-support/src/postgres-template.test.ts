import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  hasPostgres,
  postgresBinDir,
  startPostgres,
  type PostgresServer,
} from '@toolplane/store-postgres/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { POSTGRES_TEMPLATE_ENV } from './postgres-template.js';

// The test run's servers are copies of one template cluster (made by the first start); each copy
// must still be a cluster of its own, behind real password authentication.
describe.runIf(hasPostgres())('throwaway PostgreSQL servers', () => {
  const servers: PostgresServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  /** Runs `sql` with psql over TCP, as the URL's user with its password; resolves with stdout. */
  async function query(url: string, sql: string): Promise<string> {
    const psql = join(postgresBinDir(), 'psql');
    const { stdout } = await promisify(execFile)(psql, [url, '-tAc', sql], {
      env: { ...process.env, PGCONNECT_TIMEOUT: '30' },
    });
    return stdout.trim();
  }

  it('copies the run’s template into separate clusters, and runs initdb without one', async () => {
    const template = process.env[POSTGRES_TEMPLATE_ENV];
    expect(template, 'the global setup names a template folder').toBeTruthy();
    const [first, second] = await Promise.all([startPostgres(), startPostgres()]);
    servers.push(first, second);
    expect(existsSync(join(template ?? '', 'data', 'PG_VERSION'))).toBe(true);
    vi.stubEnv(POSTGRES_TEMPLATE_ENV, '');
    try {
      servers.push(await startPostgres());
    } finally {
      vi.unstubAllEnvs();
    }
    const third = servers[2] as PostgresServer;

    await query(first.url, 'CREATE TABLE only_here (n int)');
    const tables = "SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'";
    expect(await query(first.url, tables)).toBe('1');
    expect(await query(second.url, tables)).toBe('0');
    expect(await query(third.url, tables)).toBe('0');

    // Over TCP a wrong password is refused, on a copy as on a fresh cluster.
    for (const server of [second, third]) {
      const wrong = new URL(server.url);
      wrong.password = 'not-the-password';
      await expect(query(wrong.href, 'SELECT 1')).rejects.toThrow(/password authentication/);
    }
  });
});
