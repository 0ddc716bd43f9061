import { randomUUID } from 'node:crypto';
import {
  compareKeys,
  createChangeEmitter,
  resourceInfo,
  validatePrompt,
  validateResource,
  type Prompt,
  type Resource,
  type ResourceInfo,
  type Store,
  type StoreCallOptions,
  type StoreChange,
} from '@toolplane/toolkit';
import { optionKeys, raceAbort, throwIfAborted, ToolError } from '@toolplane/toolmodel';
import {
  DatabaseError,
  escapeIdentifier,
  type PoolClient,
  type QueryConfig,
  type QueryResultRow,
} from 'pg';
import { checkOut } from './check-out.js';
import { startChangeFeed, type ChangeFeed } from './change-feed.js';
import { migrate } from './migrations.js';
import { checkConnection, ownPool, type PostgresConnection } from './connection-options.js';
import { cancelOnAbort, type StatementCancel } from './statement-cancel.js';
import { asStoreError, isQueryCanceled } from './store-error.js';

/** Options for {@link createPostgresStore}. */
export type PostgresStoreOptions = PostgresConnection & {
  /**
   * PostgreSQL schema holding the tables, created when missing: lower-case letters, digits and
   * `_`, at most 48 characters. Stores on different schemas are independent. Default `toolplane`.
   */
  readonly schema?: string;
  /**
   * Called with a `store_error` when the change listener loses its connection or fails to
   * reconnect; the store keeps retrying, and catches up on the changes it missed once back.
   */
  readonly onError?: (error: ToolError) => void;
  /**
   * Whether to hold a connection that LISTENs for other instances' changes (default true): what
   * a gateway needs so its clients hear of them. A one-shot command sets `false`: its
   * subscribers then hear its own changes only.
   */
  readonly listen?: boolean;
  /** Aborts connecting and migrating, a wait for another instance's migration included. */
  readonly signal?: AbortSignal;
};

/** A {@link Store} kept in PostgreSQL; see {@link createPostgresStore}. */
export interface PostgresStore extends Store {
  /**
   * Names this instance in change notifications, and its listener connection in
   * `pg_stat_activity` (`application_name` `toolplane:listen:<instanceId>`).
   */
  readonly instanceId: string;
  /** The schema holding the tables. */
  readonly schema: string;
  /**
   * Resolves once the server has answered a trivial query: what a load balancer's readiness
   * check asks of a gateway instance.
   *
   * @throws {ToolError} `store_error` when the server cannot be reached or the store is closed;
   * `cancelled` when `signal` aborts.
   */
  ping(options?: StoreCallOptions): Promise<void>;
  /**
   * Records `key` as spent until `expiresAt` (ms since the epoch): resolves `true` the first time
   * any instance on this database spends it, `false` after. What makes a gateway fleet's one-time
   * tokens (a 2026 `requestState`) one-time across instances. Expired keys are swept as it goes.
   *
   * @throws {ToolError} `store_error` when the server cannot be reached or the store is closed;
   * `cancelled` when `signal` aborts.
   */
  spendOnce(key: string, expiresAt: number, options?: StoreCallOptions): Promise<boolean>;
}

// Defined with the connection checks every store shares; exported here, where it always was.
export { DEFAULT_POSTGRES_SCHEMA, type PostgresConnection } from './connection-options.js';

// NOTIFY refuses payloads of 8000 bytes or more.
const MAX_PAYLOAD_BYTES = 8000;

interface ResourceRow {
  uri: string;
  name: string;
  meta: { title?: string; description?: string; mimeType?: string };
  size: number;
}

interface ResourceContentRow extends ResourceRow {
  is_text: boolean;
  content: Buffer;
}

const KNOWN = optionKeys<PostgresStoreOptions>({
  connectionString: true,
  pool: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
  schema: true,
  onError: true,
  listen: true,
  signal: true,
});

/**
 * Creates a {@link Store} in PostgreSQL, creating or migrating its schema first. Every write is
 * one statement, so one round trip: it takes the next revision from a single-row counter (whose
 * row lock orders writers by commit), upserts with `INSERT … ON CONFLICT … DO UPDATE`, records the
 * key's latest change, and NOTIFYs in the same transaction. Each instance LISTENs on one
 * connection, so subscribers see their own changes when the write resolves and other instances'
 * changes as they commit (typically within milliseconds). A dropped listener reconnects and emits
 * each key changed meanwhile once, with its latest op.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name or connection choice, or a pool
 * allowing fewer than two connections;
 * `store_error` when PostgreSQL cannot be reached, the schema cannot be migrated, or it was
 * written by a newer version of this package; `cancelled` when `signal` aborts.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const schema = checkConnection(options, 'createPostgresStore', KNOWN);
  const { connectionString } = options;
  // One connection is held for LISTEN for good; with fewer than two, every query would wait.
  if (options.listen !== false && options.pool !== undefined && options.pool.options.max < 2) {
    throw new ToolError(
      'invalid_config',
      `the pool allows ${options.pool.options.max} connection(s); the store holds one to LISTEN and needs at least one more, so set max to 2 or more`,
    );
  }
  throwIfAborted(options.signal);
  const secrets = connectionString === undefined ? [] : secretsOf(connectionString);
  const onError = options.onError ?? (() => undefined);
  // An idle connection's error is emitted on the pool; unheard, it would crash the process.
  const { pool, owns: ownsPool } = ownPool(options, (error) => {
    onError(asStoreError(error, 'a pooled PostgreSQL connection failed', { secrets }));
  });

  const s = escapeIdentifier(schema);
  const channel = `${schema}_changes`;
  const instanceId = randomUUID();
  const emitter = createChangeEmitter();
  const where = `PostgreSQL store (schema ${JSON.stringify(schema)})`;

  let feed: ChangeFeed;
  try {
    await migrate(pool, schema, { signal: options.signal });
    feed =
      options.listen === false
        ? { close: () => Promise.resolve() }
        : await startChangeFeed({
            pool,
            schema,
            channel,
            instanceId,
            emit: (change) => {
              emitter.emit(change);
            },
            onError,
            secrets,
            signal: options.signal,
          });
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => undefined);
    throw asStoreError(error, `cannot open the ${where}`, {
      secrets,
      hint: 'check that the server is running and the connection settings (host, port, user, password, database) are right',
    });
  }

  const sql = statements(s, schema);
  let closed = false;

  const query = async <R extends QueryResultRow>(
    what: string,
    config: QueryConfig,
    signal: AbortSignal | undefined,
  ): Promise<R[]> => {
    checkUsable(signal);
    let client: PoolClient;
    try {
      client = await (signal === undefined
        ? checkOut(pool)
        : raceAbort(checkOut(pool), signal, {
            discard: (late) => {
              late.release();
            },
          }));
    } catch (error) {
      throw asStoreError(error, `cannot ${what} in the ${where}`, { secrets });
    }
    let failure: unknown;
    let watch: StatementCancel | undefined;
    try {
      // A cancel request stops the statement on the server; a write it reached is rolled back.
      if (signal !== undefined) watch = await cancelOnAbort(pool, client, signal);
      return (await client.query<R>(config)).rows;
    } catch (error) {
      failure = error;
      if (signal?.aborted === true && (isQueryCanceled(error) || ToolError.isInstance(error))) {
        throwIfAborted(signal);
      }
      throw asStoreError(error, `cannot ${what} in the ${where}`, { secrets });
    } finally {
      // The cancel must land before the connection serves anyone else.
      await watch?.stop();
      // A broken connection is dropped from the pool; an SQL error leaves it usable.
      client.release(
        failure instanceof Error &&
          !(failure instanceof DatabaseError) &&
          !ToolError.isInstance(failure)
          ? failure
          : undefined,
      );
    }
  };

  /**
   * Runs a write, which returns the changed key's name; when it changed something, emits
   * `change(name)` and resolves to true.
   */
  const write = async (
    what: string,
    config: QueryConfig,
    signal: AbortSignal | undefined,
    change: (name: string) => StoreChange,
  ): Promise<boolean> => {
    const row = (await query<{ name: string }>(what, config, signal))[0];
    if (row === undefined) return false;
    // The feed skips our own notification: this is the one emit for this change.
    if (!closed) emitter.emit(change(row.name));
    return true;
  };

  const checkUsable = (signal: AbortSignal | undefined): void => {
    if (closed) throw new ToolError('store_error', `the ${where} is closed`);
    throwIfAborted(signal);
  };

  const store: PostgresStore = {
    instanceId,
    schema,
    async ping(options?: StoreCallOptions) {
      await query('check the connection', { text: 'SELECT 1' }, options?.signal);
    },
    async spendOnce(key: string, expiresAt: number, options?: StoreCallOptions) {
      const rows = await query<{ spent: boolean }>(
        'spend a one-time key',
        { ...sql.spendOnce, values: [key, new Date(expiresAt)] },
        options?.signal,
      );
      return rows[0]?.spent === true;
    },
    async listPrompts(options?: StoreCallOptions) {
      const rows = await query<{ data: Prompt }>('list prompts', sql.listPrompts, options?.signal);
      return rows.map((row) => row.data).sort((a, b) => compareKeys(a.name, b.name));
    },
    async getPrompt(name, options) {
      const rows = await query<{ data: Prompt }>(
        'read a prompt',
        { ...sql.getPrompt, values: [name] },
        options?.signal,
      );
      return rows[0]?.data;
    },
    async putPrompt(prompt, options) {
      checkUsable(options?.signal);
      const stored = validatePrompt(prompt);
      await write(
        `store prompt ${JSON.stringify(stored.name)}`,
        { ...sql.putPrompt, values: [stored.name, JSON.stringify(stored), instanceId, channel] },
        options?.signal,
        () => ({ kind: 'prompt', op: 'put', name: stored.name }),
      );
      // A copy, so the caller's later changes to its argument never show in what it got back.
      return structuredClone(stored);
    },
    deletePrompt(name, options) {
      return write(
        `delete prompt ${JSON.stringify(name)}`,
        { ...sql.deletePrompt, values: [name, instanceId, channel] },
        options?.signal,
        () => ({ kind: 'prompt', op: 'delete', name }),
      );
    },
    async listResources(options) {
      const rows = await query<ResourceRow>('list resources', sql.listResources, options?.signal);
      return rows.map(toResourceInfo).sort((a, b) => compareKeys(a.uri, b.uri));
    },
    async getResource(uri, options) {
      const rows = await query<ResourceContentRow>(
        'read a resource',
        { ...sql.getResource, values: [uri] },
        options?.signal,
      );
      const row = rows[0];
      return row === undefined ? undefined : toResource(row);
    },
    async putResource(resource, options) {
      checkUsable(options?.signal);
      const stored = validateResource(resource);
      const meta: ResourceRow['meta'] = {};
      if (stored.title !== undefined) meta.title = stored.title;
      if (stored.description !== undefined) meta.description = stored.description;
      if (stored.mimeType !== undefined) meta.mimeType = stored.mimeType;
      const isText = stored.text !== undefined;
      const content = isText
        ? Buffer.from(stored.text, 'utf8')
        : Buffer.from(stored.blob, 'base64');
      await write(
        `store resource ${JSON.stringify(stored.uri)}`,
        {
          ...sql.putResource,
          values: [
            stored.uri,
            stored.name,
            JSON.stringify(meta),
            content.length,
            isText,
            content,
            instanceId,
            channel,
          ],
        },
        options?.signal,
        () => ({ kind: 'resource', op: 'put', uri: stored.uri, name: stored.name }),
      );
      return resourceInfo(stored);
    },
    deleteResource(uri, options) {
      return write(
        `delete resource ${JSON.stringify(uri)}`,
        { ...sql.deleteResource, values: [uri, instanceId, channel] },
        options?.signal,
        (deleted) => ({ kind: 'resource', op: 'delete', uri, name: deleted }),
      );
    },
    subscribe: (listener) => emitter.subscribe(listener),
    async close() {
      if (closed) return;
      closed = true;
      emitter.clear();
      await feed.close();
      if (ownsPool) await pool.end();
    },
  };
  return store;
}

/**
 * The store's statements, named so each connection parses and plans them once. Every write takes
 * the `state` row lock before touching any other row, so concurrent writers queue on it instead
 * of deadlocking, and revisions follow commit order.
 */
function statements(s: string, schema: string) {
  const named = (name: string, text: string): QueryConfig => ({
    name: `toolplane:${schema}:${name}`,
    text,
  });
  const nextRevision = `UPDATE ${s}.state SET revision = revision + 1 RETURNING revision`;
  // The change row, then NOTIFY from it; a payload too long for NOTIFY carries only the revision
  // and the listener reads the rest from the changes table.
  const recordAndNotify = (source: string, channel: string): string => `
    recorded AS (
      INSERT INTO ${s}.changes (kind, key, op, name, writer, revision)
      ${source}
      ON CONFLICT (kind, key) DO UPDATE SET op = excluded.op, name = excluded.name,
        writer = excluded.writer, revision = excluded.revision
      RETURNING kind, key, op, name, writer, revision
    ), payload AS (
      SELECT revision, writer, name, json_build_object(
        'revision', revision, 'writer', writer, 'kind', kind, 'op', op, 'key', key, 'name', name
      )::text AS body FROM recorded
    )
    SELECT name, pg_notify(${channel}::text, CASE WHEN octet_length(body) < ${MAX_PAYLOAD_BYTES} THEN body
      ELSE json_build_object('revision', revision, 'writer', writer)::text END)
    FROM payload`;

  return {
    // $1 key, $2 expiry. Sweeps a few expired keys each time, so the table stays small; a key
    // whose row expired may be spent again (its token has expired too).
    spendOnce: named(
      'spend-once',
      `WITH swept AS (
         DELETE FROM ${s}.spent WHERE key IN (
           SELECT key FROM ${s}.spent WHERE expires_at < now() LIMIT 100 FOR UPDATE SKIP LOCKED
         )
       ), inserted AS (
         INSERT INTO ${s}.spent (key, expires_at) VALUES ($1, $2)
         ON CONFLICT (key) DO NOTHING RETURNING key
       )
       SELECT EXISTS (SELECT 1 FROM inserted) AS spent`,
    ),
    listPrompts: named('list-prompts', `SELECT data FROM ${s}.prompts`),
    getPrompt: named('get-prompt', `SELECT data FROM ${s}.prompts WHERE name = $1`),
    // $1 name, $2 data, $3 writer, $4 channel
    putPrompt: named(
      'put-prompt',
      `WITH rev AS (${nextRevision}),
       stored AS (
         INSERT INTO ${s}.prompts (name, data) SELECT $1::text, $2::json FROM rev
         ON CONFLICT (name) DO UPDATE SET data = excluded.data
       ),
       ${recordAndNotify(`SELECT 'prompt', $1::text, 'put', $1::text, $3::uuid, revision FROM rev`, '$4')}`,
    ),
    // $1 name, $2 writer, $3 channel
    deletePrompt: named(
      'delete-prompt',
      `WITH rev AS (${nextRevision}),
       deleted AS (
         DELETE FROM ${s}.prompts WHERE name = $1 AND EXISTS (SELECT FROM rev) RETURNING name
       ),
       ${recordAndNotify(
         `SELECT 'prompt', deleted.name, 'delete', deleted.name, $2::uuid, rev.revision FROM deleted, rev`,
         '$3',
       )}`,
    ),
    listResources: named('list-resources', `SELECT uri, name, meta, size FROM ${s}.resources`),
    getResource: named(
      'get-resource',
      `SELECT uri, name, meta, size, is_text, content FROM ${s}.resources WHERE uri = $1`,
    ),
    // $1 uri, $2 name, $3 meta, $4 size, $5 is_text, $6 content, $7 writer, $8 channel
    putResource: named(
      'put-resource',
      `WITH rev AS (${nextRevision}),
       stored AS (
         INSERT INTO ${s}.resources (uri, name, meta, size, is_text, content)
         SELECT $1::text, $2::text, $3::json, $4::integer, $5::boolean, $6::bytea FROM rev
         ON CONFLICT (uri) DO UPDATE SET name = excluded.name, meta = excluded.meta,
           size = excluded.size, is_text = excluded.is_text, content = excluded.content
       ),
       ${recordAndNotify(`SELECT 'resource', $1::text, 'put', $2::text, $7::uuid, revision FROM rev`, '$8')}`,
    ),
    // $1 uri, $2 writer, $3 channel
    deleteResource: named(
      'delete-resource',
      `WITH rev AS (${nextRevision}),
       deleted AS (
         DELETE FROM ${s}.resources WHERE uri = $1 AND EXISTS (SELECT FROM rev) RETURNING uri, name
       ),
       ${recordAndNotify(
         `SELECT 'resource', deleted.uri, 'delete', deleted.name, $2::uuid, rev.revision FROM deleted, rev`,
         '$3',
       )}`,
    ),
  };
}

function toResourceInfo(row: ResourceRow): ResourceInfo {
  return resourceInfo({ uri: row.uri, name: row.name, ...row.meta, size: row.size });
}

function toResource(row: ResourceContentRow): Resource {
  const info = toResourceInfo(row);
  return row.is_text
    ? { ...info, text: row.content.toString('utf8') }
    : { ...info, blob: row.content.toString('base64') };
}

/** The password and whole connection string, to keep out of error messages. */
function secretsOf(connectionString: string): string[] {
  const secrets = [connectionString];
  try {
    const password = decodeURIComponent(new URL(connectionString).password);
    if (password !== '') secrets.push(password);
  } catch {
    // Not a URL (e.g. "host=... password=..."): the whole string is still masked.
  }
  return secrets;
}
