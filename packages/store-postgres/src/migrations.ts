import { throwIfAborted, ToolError } from '@toolplane/toolmodel';
import { DatabaseError, escapeIdentifier, type Pool, type PoolClient, type QueryConfig } from 'pg';
import { UNBOUNDED_ANSWER_MS } from './connection-options.js';
import { cancelOnAbort } from './statement-cancel.js';
import { isQueryCanceled } from './store-error.js';
import { inTransaction } from './transaction.js';

/**
 * The schema, one entry per version: entry `i` takes the schema from version `i` to `i + 1`.
 * Entries are only ever appended; each gets the quoted schema name.
 */
const MIGRATIONS: readonly ((schema: string) => string)[] = [
  (s) => `
    -- One row whose revision every write bumps while holding its row lock until commit, so
    -- revisions are handed out in commit order: the order NOTIFY delivers them in.
    CREATE TABLE ${s}.state (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      revision bigint NOT NULL
    );
    INSERT INTO ${s}.state (revision) VALUES (0);

    -- json, not jsonb: json keeps a template's NUL characters (as \\u0000), jsonb refuses them.
    CREATE TABLE ${s}.prompts (
      name text PRIMARY KEY,
      data json NOT NULL
    );

    -- Contents are bytes for text too: a PostgreSQL text value cannot hold a NUL character.
    CREATE TABLE ${s}.resources (
      uri text PRIMARY KEY,
      name text NOT NULL,
      meta json NOT NULL,
      size integer NOT NULL,
      is_text boolean NOT NULL,
      content bytea NOT NULL
    );

    -- The latest change of each key: what a listener that lost its connection catches up from.
    -- One row per key ever written, so it never needs pruning.
    CREATE TABLE ${s}.changes (
      kind text NOT NULL CHECK (kind IN ('prompt', 'resource')),
      key text NOT NULL,
      op text NOT NULL CHECK (op IN ('put', 'delete')),
      name text NOT NULL,
      writer uuid NOT NULL,
      revision bigint NOT NULL,
      PRIMARY KEY (kind, key)
    );
    CREATE INDEX changes_revision ON ${s}.changes (revision);
  `,
  // OAuth credentials of connectors, each row sealed with AES-256-GCM: nothing in plain text.
  (s) => `
    CREATE TABLE ${s}.oauth_credentials (
      key text PRIMARY KEY,
      sealed text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `,
  (s) => `
    -- One-time tokens spent by any instance (a gateway's requestState nonces), each kept until
    -- it expires; see spendOnce.
    CREATE TABLE ${s}.spent (
      key text PRIMARY KEY,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX spent_expires_at ON ${s}.spent (expires_at);
  `,
  (s) => `
    -- Tool pins: the accepted definition (canonical JSON) of each tool of each upstream server.
    CREATE TABLE ${s}.tool_pins (
      namespace text NOT NULL,
      tool text NOT NULL,
      fingerprint text NOT NULL,
      definition text NOT NULL,
      pinned_at bigint NOT NULL,
      PRIMARY KEY (namespace, tool)
    );
    -- A pinned tool its server now offers differently, until a person accepts it.
    CREATE TABLE ${s}.tool_pin_changes (
      namespace text NOT NULL,
      tool text NOT NULL,
      pinned_fingerprint text NOT NULL,
      pinned_definition text NOT NULL,
      fingerprint text NOT NULL,
      definition text NOT NULL,
      seen_at bigint NOT NULL,
      PRIMARY KEY (namespace, tool)
    );
    -- Approvals asked, granted and refused, pins made, changed and accepted.
    CREATE TABLE ${s}.audit_log (
      seq bigserial PRIMARY KEY,
      kind text NOT NULL,
      at bigint NOT NULL,
      tool_id text NOT NULL,
      who text,
      fingerprint text,
      previous text,
      detail json
    );
    CREATE INDEX audit_log_at ON ${s}.audit_log (at);
  `,
];

/** The schema version this package writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

// First key of the two-key advisory lock: "tool" in ASCII, so our locks are recognisable.
const LOCK_CLASS = 0x746f6f6c;

/**
 * Brings `schema` up to {@link SCHEMA_VERSION}. Migrations run in one transaction holding an
 * advisory lock on the schema's name, so instances starting together migrate once, in turn.
 *
 * @throws {ToolError} `store_error` when the database fails or the schema is newer than this
 * package; `cancelled` when `signal` aborts first.
 * @internal
 */
export async function migrate(
  pool: Pool,
  schema: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<void> {
  const s = escapeIdentifier(schema);
  // The common case, an up-to-date schema, costs one read and takes no lock.
  const current = await readVersion(pool, s);
  if (current === SCHEMA_VERSION) return;
  checkNotNewer(current, schema);
  const { signal } = options;
  if (signal !== undefined) throwIfAborted(signal);

  await underSchemaLock(pool, schema, signal, async (client) => {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.migrations (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    // Read again under the lock: another instance may have migrated while we waited for it.
    const from = await readVersion(client, s);
    checkNotNewer(from, schema);
    for (let version = from; version < SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version]?.(s) ?? '');
      await client.query(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [version + 1]);
    }
  });
}

/**
 * Runs `work` in one transaction holding the schema's advisory lock, the one every store of the
 * package takes to change the schema: PostgreSQL's `CREATE … IF NOT EXISTS` is not safe against
 * a concurrent twin (both may pass the check, and one then fails on a catalog unique index), so
 * instances starting together create a schema or a table in turn.
 *
 * @throws {ToolError} `cancelled` when `signal` aborts first, the wait for the lock included
 * (the lock's holder may be a session left open for hours); else what `work` or the database
 * throws.
 * @internal
 */
export async function underSchemaLock(
  pool: Pool,
  schema: string,
  signal: AbortSignal | undefined,
  work: (client: PoolClient) => Promise<void>,
): Promise<void> {
  try {
    await inTransaction(pool, async (client) => {
      // Another instance may be migrating: wait for it, however long, rather than fail the
      // start, unless the caller stops waiting.
      await client.query('SET LOCAL statement_timeout = 0');
      // pg reads a query's own query_timeout, which its types leave out.
      const waitForTurn = {
        text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))',
        values: [LOCK_CLASS, schema],
        query_timeout: UNBOUNDED_ANSWER_MS,
      } as QueryConfig;
      const watch = signal === undefined ? undefined : await cancelOnAbort(pool, client, signal);
      try {
        await client.query(waitForTurn);
      } finally {
        await watch?.stop();
      }
      if (signal !== undefined) throwIfAborted(signal);
      await work(client);
    });
  } catch (error) {
    if (signal?.aborted === true && (isQueryCanceled(error) || ToolError.isInstance(error))) {
      throwIfAborted(signal);
    }
    throw error;
  }
}

async function readVersion(db: Pool | PoolClient, s: string): Promise<number> {
  try {
    const result = await db.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.migrations`,
    );
    return result.rows[0]?.version ?? 0;
  } catch (error) {
    // undefined_table, invalid_schema_name: nothing has been created yet.
    if (error instanceof DatabaseError && (error.code === '42P01' || error.code === '3F000')) {
      return 0;
    }
    throw error;
  }
}

function checkNotNewer(version: number, schema: string): void {
  if (version > SCHEMA_VERSION) {
    throw new ToolError(
      'store_error',
      `PostgreSQL schema ${JSON.stringify(schema)} is at version ${version}, newer than this @toolplane/store-postgres understands (${SCHEMA_VERSION}); upgrade the package`,
    );
  }
}
