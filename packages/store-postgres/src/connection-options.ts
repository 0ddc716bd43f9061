// What every store of this package checks and opens first, the same way: the schema name, the
// connection (a connection string or a pool, exactly one) and, for a connection string, a pool
// of its own.
import {
  checkDuration,
  MAX_TIMER_MS,
  optionKeys,
  refuseUnknownOptions,
  ToolError,
} from '@toolplane/toolmodel';
import { Pool } from 'pg';

/** Where {@link createPostgresStore} connects: a connection string, or a pool you own. */
export type PostgresConnection =
  | {
      /** `postgres://user:password@host:port/database`; the store creates and ends its own pool. */
      readonly connectionString: string;
      readonly pool?: undefined;
      /**
       * Most a query waits for a connection of the store's pool: opening one, or a free one when
       * all are busy (default 10,000 ms; 0 for no bound). Past it the query fails with `store_error`, so a server
       * that accepts connections but never answers cannot hold a request (or a CLI command)
       * forever.
       */
      readonly connectTimeoutMs?: number;
      /**
       * Most one statement may run, a wait for a lock included, before PostgreSQL cancels it and
       * the call fails with `store_error` (default 10,000 ms; 0 for no bound). The store's
       * statements are small: one that runs this long is waiting on a lock someone holds, and
       * without a bound each such wait keeps a pool connection from every other request. A
       * `statement_timeout` parameter in the connection string wins. An answer that has not
       * come 5 s after that (a server that stopped answering, a network that dropped it) fails
       * the call too, and its connection is closed.
       */
      readonly statementTimeoutMs?: number;
    }
  | {
      /**
       * A `pg` pool you created; the store borrows connections (one of them for good, to LISTEN)
       * and leaves the pool open on {@link Store.close}.
       */
      readonly pool: Pool;
      readonly connectionString?: undefined;
      readonly connectTimeoutMs?: undefined;
      readonly statementTimeoutMs?: undefined;
    };

/** Default of {@link PostgresConnection}'s `connectTimeoutMs`. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Default of {@link PostgresConnection}'s `statementTimeoutMs`. */
const STATEMENT_TIMEOUT_MS = 10_000;
/** How much longer than the statement timeout the client waits for an answer itself. */
const ANSWER_GRACE_MS = 5_000;

/**
 * The longest wait for an answer a statement may set for itself (`query_timeout`): what a
 * statement that waits on purpose, as a migration for another instance's, passes.
 */
export const UNBOUNDED_ANSWER_MS = MAX_TIMER_MS;

/** Default schema of every store of this package. */
export const DEFAULT_POSTGRES_SCHEMA = 'toolplane';

// Lower-case, so it never needs quoting to mean what it says; short enough for derived names
// (`<schema>_changes`, `<schema>_pins`) to stay under PostgreSQL's 63-byte identifiers.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** The keys of {@link PostgresConnection}, which every store's options have. */
export const CONNECTION_KEYS = optionKeys<PostgresConnection>({
  connectionString: true,
  pool: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
});

// Names people reach for by analogy with node-postgres and other clients. A setting of the
// connection itself (TLS, a password) goes in the connection string, or on a pool of one's own.
const INSTEAD: Readonly<Record<string, string>> = {
  url: 'did you mean "connectionString"?',
  connection: 'did you mean "connectionString"?',
  schemaName: 'did you mean "schema"?',
  ssl: 'set TLS in the connection string (?sslmode=require), or pass a pool of your own',
  password: 'put it in the connection string, or pass a pool of your own',
  connectionTimeoutMillis: 'did you mean "connectTimeoutMs"?',
  statement_timeout: 'did you mean "statementTimeoutMs"?',
};

/**
 * Checks a store's options (`known`: every key its opener takes), schema name and connection,
 * and answers the schema (the default when none is given). `opener` names the function called,
 * for the message. An unknown key used to be ignored: `schemaName` opened the default schema,
 * and `ssl: true` connected without TLS, both without a word.
 *
 * @throws {ToolError} `invalid_config` for an unknown option, a bad schema name, not exactly one
 * of `connectionString` and `pool`, or a timeout that is not a whole number of milliseconds
 * from 0 to 2^31 − 1.
 */
export function checkConnection(
  options: PostgresConnection & { readonly schema?: string | undefined },
  opener: string,
  known: readonly string[],
): string {
  refuseUnknownOptions(options, known, opener, { code: 'invalid_config', instead: INSTEAD });
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new ToolError(
      'invalid_config',
      `PostgreSQL schema name ${JSON.stringify(schema)} is not allowed; use 1-48 characters of a-z 0-9 _, not starting with a digit`,
    );
  }
  if ((options.connectionString === undefined) === (options.pool === undefined)) {
    throw new ToolError(
      'invalid_config',
      `${opener} needs exactly one of connectionString and pool`,
    );
  }
  for (const key of ['connectTimeoutMs', 'statementTimeoutMs'] as const) {
    const value: unknown = options[key];
    if (value !== undefined) {
      checkDuration(value, `${opener}: ${key}`, {
        code: 'invalid_config',
        zero: true,
        whole: true,
      });
    }
  }
  return schema;
}

/** Options for {@link createPostgresPool}. */
export interface PostgresPoolOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly connectionString: string;
  /** As {@link PostgresConnection}'s `connectTimeoutMs` (default 10,000 ms; 0 for no bound). */
  readonly connectTimeoutMs?: number | undefined;
  /** As {@link PostgresConnection}'s `statementTimeoutMs` (default 10,000 ms; 0 for no bound). */
  readonly statementTimeoutMs?: number | undefined;
  /** Most connections the pool opens (default 10, node-postgres's). */
  readonly max?: number | undefined;
  /**
   * Hears an idle connection's error (a server restart, a dropped network): unheard, the pool's
   * `error` event would end the process. Default: ignored (the next query opens a new one).
   */
  readonly onIdleError?: ((error: Error) => void) | undefined;
}

const POOL_KEYS = optionKeys<PostgresPoolOptions>({
  connectionString: true,
  connectTimeoutMs: true,
  statementTimeoutMs: true,
  max: true,
  onIdleError: true,
});

/**
 * Creates a `pg` pool with the defaults a store gives the pool it owns: a bounded wait for a
 * connection, a statement timeout, a client-side bound on a missing answer and an idle-error
 * listener. Lend it to several stores (their `pool` option) so one process holds one pool; the
 * stores leave it open, and you end it (`pool.end()`) once they are all closed.
 *
 * @throws {ToolError} `invalid_config` for an unknown option, a timeout that is not a whole
 * number of milliseconds from 0 to 2^31 − 1, or a `max` below 1.
 */
export function createPostgresPool(options: PostgresPoolOptions): Pool {
  refuseUnknownOptions(options, POOL_KEYS, 'createPostgresPool', {
    code: 'invalid_config',
    instead: INSTEAD,
  });
  checkConnection(
    {
      connectionString: options.connectionString,
      ...(options.connectTimeoutMs === undefined
        ? {}
        : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.statementTimeoutMs === undefined
        ? {}
        : { statementTimeoutMs: options.statementTimeoutMs }),
    },
    'createPostgresPool',
    CONNECTION_KEYS,
  );
  const { max } = options;
  if (max !== undefined && !(Number.isSafeInteger(max) && max >= 1)) {
    throw new ToolError(
      'invalid_config',
      `createPostgresPool: max must be a whole number of connections, 1 or more, got ${String(max)}`,
    );
  }
  const statementTimeout = options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const pool = new Pool({
    connectionString: options.connectionString,
    keepAlive: true,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    statement_timeout: statementTimeout,
    // The server enforces statement_timeout; this holds when the server itself cannot answer.
    ...(statementTimeout === 0 ? {} : { query_timeout: statementTimeout + ANSWER_GRACE_MS }),
    ...(max === undefined ? {} : { max }),
  });
  pool.on('error', options.onIdleError ?? (() => undefined));
  return pool;
}

/**
 * The pool a store queries: the one given, or a new one for the connection string (see
 * {@link createPostgresPool}), which the store owns (`owns`) and ends on close. An owned pool's
 * idle connection errors go to `onIdleError`.
 */
export function ownPool(
  options: PostgresConnection,
  onIdleError: (error: Error) => void = () => undefined,
): { readonly pool: Pool; readonly owns: boolean } {
  if (options.pool !== undefined) return { pool: options.pool, owns: false };
  const pool = createPostgresPool({
    connectionString: options.connectionString,
    connectTimeoutMs: options.connectTimeoutMs,
    statementTimeoutMs: options.statementTimeoutMs,
    onIdleError,
  });
  return { pool, owns: true };
}
