import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ToolError } from '@toolplane/toolmodel';
import type { OAuthCredentialRecord, OAuthCredentialStore } from './credential-store.js';

/** The environment variable that holds the token key: 32 bytes, base64. */
export const TOKEN_KEY_ENV = 'TOOLPLANE_TOKEN_KEY';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * Reads the 32-byte AES-256-GCM key for credentials at rest from {@link TOKEN_KEY_ENV}.
 *
 * @throws {ToolError} `invalid_config` when the variable is unset, not base64, or not 32 bytes
 * (the message says how to make one; it never repeats the value).
 */
export function tokenKeyFromEnv(env: NodeJS.ProcessEnv = process.env): Buffer {
  const value = env[TOKEN_KEY_ENV]?.trim();
  const howTo = `set ${TOKEN_KEY_ENV} to 32 random bytes in base64, e.g. the output of \`openssl rand -base64 32\``;
  if (value === undefined || value === '') {
    throw new ToolError('invalid_config', `OAuth credentials are encrypted at rest: ${howTo}`);
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    throw new ToolError('invalid_config', `${TOKEN_KEY_ENV} is not base64: ${howTo}`);
  }
  const key = Buffer.from(value, 'base64');
  if (key.length !== KEY_BYTES) {
    throw new ToolError(
      'invalid_config',
      `${TOKEN_KEY_ENV} holds ${String(key.length)} bytes, not ${String(KEY_BYTES)}: ${howTo}`,
    );
  }
  return key;
}

function refused(storeKey: string, why: string, cause?: unknown): ToolError {
  return new ToolError(
    'store_error',
    `the stored OAuth credentials of "${storeKey}" cannot be read (${why}); they were sealed under another ${TOKEN_KEY_ENV} or altered: log in again`,
    { cause },
  );
}

/**
 * Seals {@link OAuthCredentialRecord}s with AES-256-GCM (a fresh 96-bit IV per seal, the store
 * key as additional data, so a blob moved to another key is refused too). A blob sealed under
 * another key, altered, or cut short is refused whole, never half-read.
 */
export class CredentialSealer {
  readonly #key: Buffer;

  /** @throws {ToolError} `invalid_config` when `key` is not 32 bytes. */
  constructor(key: Uint8Array) {
    if (key.length !== KEY_BYTES) {
      throw new ToolError(
        'invalid_config',
        `an AES-256-GCM key is 32 bytes, got ${String(key.length)}`,
      );
    }
    this.#key = Buffer.from(key);
  }

  /** The record as text: `v1.` and the base64url of IV, tag and ciphertext. */
  seal(storeKey: string, record: OAuthCredentialRecord): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(`toolplane-oauth-${VERSION}\0${storeKey}`, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(record), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /**
   * The record sealed in `blob` under `storeKey`.
   *
   * @throws {ToolError} `store_error` when the blob was sealed under another key or another store
   * key, was altered or cut, or does not hold a record.
   */
  open(storeKey: string, blob: string): OAuthCredentialRecord {
    if (!blob.startsWith(`${VERSION}.`)) throw refused(storeKey, 'unknown format');
    const raw = Buffer.from(blob.slice(VERSION.length + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw refused(storeKey, 'too short');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(`toolplane-oauth-${VERSION}\0${storeKey}`, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    let text: string;
    try {
      text = Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch (error) {
      throw refused(storeKey, 'authentication failed', error);
    }
    const record = JSON.parse(text) as unknown;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw refused(storeKey, 'not a record');
    }
    return record as OAuthCredentialRecord;
  }
}

/** Where sealed credential blobs live: a table of text by key (see {@link sealedCredentialStore}). */
export interface SealedBlobStore {
  get(key: string): Promise<string | undefined>;
  put(key: string, blob: string): Promise<void>;
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

/**
 * An {@link OAuthCredentialStore} over `blobs` that holds only sealed records: how the SQL
 * stores keep credentials encrypted at rest.
 */
export function sealedCredentialStore(
  blobs: SealedBlobStore,
  sealer: CredentialSealer,
): OAuthCredentialStore {
  return {
    async load(key) {
      const blob = await blobs.get(key);
      return blob === undefined ? undefined : sealer.open(key, blob);
    },
    save: (key, record) => blobs.put(key, sealer.seal(key, record)),
    delete: (key) => blobs.delete(key),
    list: () => blobs.keys(),
  };
}
