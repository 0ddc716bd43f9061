export { createSqliteStore, DEFAULT_SQLITE_PATH } from './sqlite-store.js';
export type { SqliteStoreOptions } from './sqlite-store.js';
