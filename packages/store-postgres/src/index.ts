export { createPostgresCredentialStore } from './postgres-credentials.js';
export type {
  PostgresCredentialStore,
  PostgresCredentialStoreOptions,
} from './postgres-credentials.js';
export { createPostgresEvidenceStore } from './postgres-evidence.js';
export type { PostgresEvidenceStore, PostgresEvidenceStoreOptions } from './postgres-evidence.js';
export { createPostgresVectorCache } from './postgres-vectors.js';
export type { PostgresVectorCache, PostgresVectorCacheOptions } from './postgres-vectors.js';
export { createPostgresPinStore } from './postgres-pins.js';
export type { PostgresPinStoreOptions } from './postgres-pins.js';
export { createPostgresStore, DEFAULT_POSTGRES_SCHEMA } from './postgres-store.js';
export type { PostgresConnection, PostgresStore, PostgresStoreOptions } from './postgres-store.js';
export { createPostgresPool } from './connection-options.js';
export type { PostgresPoolOptions } from './connection-options.js';
