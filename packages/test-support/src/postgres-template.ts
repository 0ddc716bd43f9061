// The test run's PostgreSQL template cluster: scripts/postgres.sh, given the folder below, runs
// initdb once into it (on the first start that needs a server, so a run that starts none pays
// nothing) and copies that cluster for every later start, at about a fifth of initdb's CPU.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeStale } from './stale-folders.js';

/** The variable through which scripts/postgres.sh learns the template's folder. */
export const POSTGRES_TEMPLATE_ENV = 'TOOLPLANE_PG_TEMPLATE';

// tmpdir()/toolplane-pg-template-<pid of the run>-<random>
const PREFIX = 'toolplane-pg-template-';
const NAME = new RegExp(`^${PREFIX}(\\d+)-`);

/**
 * Makes this run's (empty) template folder and names it in the environment, which the test
 * workers and the scripts they start inherit; resolves with its path. Folders of killed runs
 * are removed first.
 */
export async function makePostgresTemplate(): Promise<string> {
  await removeStale(tmpdir(), NAME);
  const dir = await mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
  process.env[POSTGRES_TEMPLATE_ENV] = dir;
  return dir;
}
