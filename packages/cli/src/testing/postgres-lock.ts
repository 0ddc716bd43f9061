// A PostgreSQL session that holds a table lock for a test: what a store meets when another
// session (a long migration, an operator's maintenance) holds its tables.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { postgresBinDir } from './fleet.js';

/** A psql session holding `LOCK TABLE … IN ACCESS EXCLUSIVE MODE` on `tables` until released. */
export async function holdLock(
  url: string,
  tables: string,
): Promise<{ release: () => Promise<void> }> {
  const psql = spawn(join(postgresBinDir(), 'psql'), [url, '-X', '-q', '-v', 'ON_ERROR_STOP=1'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const locked = new Promise<void>((resolve, reject) => {
    let out = '';
    psql.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('locked')) resolve();
    });
    psql.once('exit', (code) => {
      reject(new Error(`psql exited with ${String(code)} before taking the lock`));
    });
  });
  psql.stdin.write(`BEGIN;\nLOCK TABLE ${tables} IN ACCESS EXCLUSIVE MODE;\n\\echo locked\n`);
  await locked;
  return {
    release: async () => {
      const ended = new Promise((resolve) => psql.once('exit', resolve));
      psql.stdin.end('ROLLBACK;\n');
      await ended;
    },
  };
}
