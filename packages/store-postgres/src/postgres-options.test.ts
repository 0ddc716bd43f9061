import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { createPostgresPool } from './connection-options.js';
import { createPostgresCredentialStore } from './postgres-credentials.js';
import { createPostgresEvidenceStore } from './postgres-evidence.js';
import { createPostgresPinStore } from './postgres-pins.js';
import { createPostgresStore } from './postgres-store.js';
import { createPostgresVectorCache } from './postgres-vectors.js';

// Checked before any connection is tried: nothing listens on this port.
const connectionString = 'postgres://x@127.0.0.1:1/x';

async function messageOf(open: () => Promise<unknown>): Promise<string> {
  const error = await open().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (ToolError.isInstance(error) && error.code === 'invalid_config') return error.message;
  throw new Error(`expected invalid_config, got ${String(error)}`);
}

describe('PostgreSQL store options', () => {
  it('refuse an unknown key instead of ignoring it (a schema name, TLS)', async () => {
    expect(
      await messageOf(() => createPostgresStore({ connectionString, schemaName: 'team' } as never)),
    ).toBe('createPostgresStore: unknown option "schemaName"; did you mean "schema"?');
    expect(
      await messageOf(() => createPostgresPinStore({ connectionString, ssl: true } as never)),
    ).toBe(
      'createPostgresPinStore: unknown option "ssl"; set TLS in the connection string (?sslmode=require), or pass a pool of your own',
    );
    expect(
      await messageOf(() =>
        createPostgresEvidenceStore({ connectionString, listen: false } as never),
      ),
    ).toMatch(
      /^createPostgresEvidenceStore: unknown option "listen"; known options: connectionString, pool,/,
    );
    expect(
      await messageOf(() =>
        createPostgresVectorCache({ connectionString, onError: () => undefined } as never),
      ),
    ).toContain('createPostgresVectorCache: unknown option "onError"');
    expect(
      await messageOf(() =>
        createPostgresCredentialStore({
          connectionString,
          key: new Uint8Array(32),
          keys: [],
        } as never),
      ),
    ).toBe('createPostgresCredentialStore: unknown option "keys"; did you mean "key"?');
    expect(
      await messageOf(() =>
        Promise.resolve().then(() =>
          createPostgresPool({ connectionString, maxConnections: 5 } as never),
        ),
      ),
    ).toContain('createPostgresPool: unknown option "maxConnections"');
  });

  it('refuse a timeout past what a timer keeps', async () => {
    expect(
      await messageOf(() => createPostgresStore({ connectionString, statementTimeoutMs: 2 ** 31 })),
    ).toBe(
      'createPostgresStore: statementTimeoutMs must be a whole number of milliseconds 0 or more, at most 2147483647 (about 24.8 days), got 2147483648',
    );
  });
});
