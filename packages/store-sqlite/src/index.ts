export { createSqliteCredentialStore } from './sqlite-credentials.js';
export type { SqliteCredentialStore, SqliteCredentialStoreOptions } from './sqlite-credentials.js';
export { createSqliteEvidenceStore } from './sqlite-evidence.js';
export type { SqliteEvidenceStore, SqliteEvidenceStoreOptions } from './sqlite-evidence.js';
export { createSqliteStore, DEFAULT_SQLITE_PATH } from './sqlite-store.js';
export { createSqliteVectorCache } from './sqlite-vectors.js';
export type { SqliteVectorCache, SqliteVectorCacheOptions } from './sqlite-vectors.js';
export type { SqliteStoreOptions } from './sqlite-store.js';
