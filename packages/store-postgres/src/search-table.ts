import { escapeIdentifier, type Pool } from 'pg';
import { checkConnection, ownPool } from './connection-options.js';
import type { PostgresConnection } from './postgres-store.js';
import { underSchemaLock } from './migrations.js';
import { asStoreError } from './store-error.js';

/** Where a search cache lives: a connection and the schema, shared with the other stores'. */
export type SearchTableOptions = PostgresConnection & {
  /** Default `toolplane`. */
  readonly schema?: string;
};

/** One of the search caches' tables, opened by {@link openSearchTable}. */
export interface SearchTable {
  /** The table's qualified, quoted name. */
  readonly table: string;
  /** Runs a statement; a failure rejects with `store_error` saying `cannot <what> <noun>`. */
  readonly query: <R extends object>(
    what: string,
    text: string,
    values?: unknown[],
  ) => Promise<R[]>;
  /** Ends the pool it created (a pool passed in stays open). */
  readonly close: () => Promise<void>;
  /** The pool the table is reached through. */
  readonly pool: Pool;
  /** The schema's name, unquoted. */
  readonly schema: string;
  /** What error messages mask (the connection string). */
  readonly secrets: readonly string[];
}

/**
 * Opens (creating when missing) a table of the search caches — learned evidence, embedding
 * vectors. They are caches of use, kept out of the store's versioned migrations.
 *
 * @throws {ToolError} `invalid_config` for a bad schema name or not exactly one of
 * `connectionString` and `pool`; `store_error` when the server cannot be reached.
 */
export async function openSearchTable(
  options: SearchTableOptions,
  spec: {
    readonly name: string;
    readonly noun: string;
    readonly columns: string;
    readonly opener: string;
    /** Every option key the opener takes. */
    readonly known: readonly string[];
    /** Tables of its own beside it (name and columns), created with it when missing. */
    readonly beside?: readonly { readonly name: string; readonly columns: string }[];
  },
): Promise<SearchTable> {
  const schema = checkConnection(options, spec.opener, spec.known);
  const secrets = options.connectionString === undefined ? [] : [options.connectionString];
  const { pool } = ownPool(options);
  const close = async (): Promise<void> => {
    if (options.pool === undefined) await pool.end().catch(() => undefined);
  };
  const table = `${escapeIdentifier(schema)}.${spec.name}`;
  const query = async <R extends object>(what: string, text: string, values: unknown[] = []) => {
    try {
      return (await pool.query<R>(text, values)).rows;
    } catch (error) {
      throw asStoreError(error, `cannot ${what} ${spec.noun}`, { secrets });
    }
  };
  const tables = [{ name: spec.name, columns: spec.columns }, ...(spec.beside ?? [])].map(
    ({ name, columns }) => ({ name: `${escapeIdentifier(schema)}.${name}`, columns }),
  );
  try {
    // The common case, the tables already there, costs one read and takes no lock. The last is
    // looked for: a table added beside an older one is created then.
    const [found] = await query<{ found: string | null }>(
      'look for the table of',
      'SELECT to_regclass($1) AS found',
      [tables.at(-1)?.name],
    );
    if ((found?.found ?? null) === null) {
      await underSchemaLock(pool, schema, undefined, async (client) => {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(schema)}`);
        for (const each of tables) {
          await client.query(`CREATE TABLE IF NOT EXISTS ${each.name} (${each.columns})`);
        }
      }).catch((error: unknown) => {
        throw asStoreError(error, `cannot create the table of ${spec.noun}`, { secrets });
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { table, query, close, pool, schema, secrets };
}
