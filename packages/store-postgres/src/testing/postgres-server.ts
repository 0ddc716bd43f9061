import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Test and benchmark support, not part of the package: the build leaves src/testing out.

const SCRIPT = fileURLToPath(new URL('../../../../scripts/postgres.sh', import.meta.url));
const run = promisify(execFile);

/** What to tell a developer whose machine has no PostgreSQL server binaries. */
export const POSTGRES_MISSING =
  'PostgreSQL server binaries (initdb, pg_ctl) not found, so the @toolplane/store-postgres tests ' +
  'are skipped. Install them with `apt-get install -y --no-install-recommends postgresql` ' +
  '(or put a directory holding initdb and pg_ctl on PATH); in CI they are required.';

/** Whether scripts/postgres.sh can find the server binaries. */
export function hasPostgres(): boolean {
  try {
    execFileSync('bash', [SCRIPT, 'bindir'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The directory of the PostgreSQL binaries scripts/postgres.sh finds (`psql` among them). */
export function postgresBinDir(): string {
  return execFileSync('bash', [SCRIPT, 'bindir'], { encoding: 'utf8' }).trim();
}

/** A throwaway server started by {@link startPostgres}. */
export interface PostgresServer {
  /** Connection URL of its database, with the superuser's password, on 127.0.0.1. */
  readonly url: string;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** Starts a fresh server on 127.0.0.1 with scripts/postgres.sh. */
export async function startPostgres(): Promise<PostgresServer> {
  const { stdout } = await run('bash', [SCRIPT, 'start'], { timeout: 120_000 });
  const [url, dir] = stdout.trim().split('\n');
  if (url === undefined || dir === undefined) {
    throw new Error(`scripts/postgres.sh start printed no URL and directory: ${stdout}`);
  }
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await run('bash', [SCRIPT, 'stop', dir], { timeout: 60_000 });
    },
  };
}
