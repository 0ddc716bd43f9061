export { createPostgresStore, DEFAULT_POSTGRES_SCHEMA } from './postgres-store.js';
export type { PostgresConnection, PostgresStore, PostgresStoreOptions } from './postgres-store.js';
