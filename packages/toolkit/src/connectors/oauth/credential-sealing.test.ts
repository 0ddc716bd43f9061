import { randomBytes } from 'node:crypto';
import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import {
  CredentialSealer,
  sealedCredentialStore,
  TOKEN_KEY_ENV,
  tokenKeyFromEnv,
  type SealedBlobStore,
} from './credential-sealing.js';
import {
  credentialKey,
  parseCredentialKey,
  type OAuthCredentialRecord,
} from './credential-store.js';

const SECRET_ACCESS = 'at-secret-value-1234567890';
const SECRET_REFRESH = 'rt-secret-value-0987654321';
const record: OAuthCredentialRecord = {
  tokens: { access_token: SECRET_ACCESS, refresh_token: SECRET_REFRESH, token_type: 'Bearer' },
  expiresAt: 1_900_000_000_000,
  scopes: ['tools:read'],
  updatedAt: 1,
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return ToolError.isInstance(error) ? error.code : 'not a ToolError';
  }
  return undefined;
}

class MapBlobs implements SealedBlobStore {
  readonly map = new Map<string, string>();
  get = (key: string) => Promise.resolve(this.map.get(key));
  put = (key: string, blob: string) => {
    this.map.set(key, blob);
    return Promise.resolve();
  };
  delete = (key: string) => {
    this.map.delete(key);
    return Promise.resolve();
  };
  keys = () => Promise.resolve([...this.map.keys()]);
}

describe('tokenKeyFromEnv', () => {
  it('reads a 32-byte base64 key', () => {
    const key = randomBytes(32);
    expect(tokenKeyFromEnv({ [TOKEN_KEY_ENV]: key.toString('base64') }).equals(key)).toBe(true);
  });

  it('refuses a missing, short, long or non-base64 key with invalid_config, never echoing it', () => {
    expect(codeOf(() => tokenKeyFromEnv({}))).toBe('invalid_config');
    expect(codeOf(() => tokenKeyFromEnv({ [TOKEN_KEY_ENV]: '' }))).toBe('invalid_config');
    const short = randomBytes(16).toString('base64');
    expect(codeOf(() => tokenKeyFromEnv({ [TOKEN_KEY_ENV]: short }))).toBe('invalid_config');
    expect(
      codeOf(() => tokenKeyFromEnv({ [TOKEN_KEY_ENV]: randomBytes(48).toString('base64') })),
    ).toBe('invalid_config');
    expect(codeOf(() => tokenKeyFromEnv({ [TOKEN_KEY_ENV]: 'not base64 at all!' }))).toBe(
      'invalid_config',
    );
    try {
      tokenKeyFromEnv({ [TOKEN_KEY_ENV]: short });
    } catch (error) {
      expect(String(error)).not.toContain(short);
    }
  });
});

describe('CredentialSealer', () => {
  const key = credentialKey('github', 'https://mcp.example.com/mcp');

  it('round-trips a record, and the blob holds no secret in plain text', () => {
    const sealer = new CredentialSealer(randomBytes(32));
    const blob = sealer.seal(key, record);
    expect(blob).not.toContain(SECRET_ACCESS);
    expect(Buffer.from(blob.slice(3), 'base64url').toString('latin1')).not.toContain('secret');
    expect(sealer.open(key, blob)).toEqual(record);
    // A fresh IV each time.
    expect(sealer.seal(key, record)).not.toBe(blob);
  });

  it('refuses a blob sealed under another key, for another store key, altered or cut', () => {
    const sealer = new CredentialSealer(randomBytes(32));
    const blob = sealer.seal(key, record);
    expect(codeOf(() => new CredentialSealer(randomBytes(32)).open(key, blob))).toBe('store_error');
    expect(
      codeOf(() => sealer.open(credentialKey('other', 'https://mcp.example.com/mcp'), blob)),
    ).toBe('store_error');
    const raw = Buffer.from(blob.slice(3), 'base64url');
    for (const at of [0, 13, 30, raw.length - 1]) {
      const altered = Buffer.from(raw);
      altered[at] = (altered[at] ?? 0) ^ 1;
      expect(codeOf(() => sealer.open(key, `v1.${altered.toString('base64url')}`))).toBe(
        'store_error',
      );
    }
    expect(codeOf(() => sealer.open(key, `v1.${raw.subarray(0, 20).toString('base64url')}`))).toBe(
      'store_error',
    );
    expect(codeOf(() => sealer.open(key, 'v2.abc'))).toBe('store_error');
    expect(codeOf(() => sealer.open(key, ''))).toBe('store_error');
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(codeOf(() => new CredentialSealer(randomBytes(31)))).toBe('invalid_config');
  });

  it('keeps a __proto__ key as data, not as a prototype', () => {
    const sealer = new CredentialSealer(randomBytes(32));
    const hostile = JSON.parse(
      '{"updatedAt":1,"__proto__":{"polluted":true}}',
    ) as OAuthCredentialRecord;
    const opened = sealer.open(key, sealer.seal(key, hostile));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(opened)).toBe(Object.prototype);
  });
});

describe('sealedCredentialStore', () => {
  it('keeps only sealed blobs in the blob store', async () => {
    const blobs = new MapBlobs();
    const store = sealedCredentialStore(blobs, new CredentialSealer(randomBytes(32)));
    const key = credentialKey('fx', 'http://127.0.0.1:9/mcp#frag');
    await store.save(key, record);
    expect([...blobs.map.values()].join()).not.toContain(SECRET_REFRESH);
    expect(await store.load(key)).toEqual(record);
    expect(await store.list()).toEqual([key]);
    expect(parseCredentialKey(key)).toEqual({ server: 'fx', resource: 'http://127.0.0.1:9/mcp' });
    await store.delete(key);
    expect(await store.load(key)).toBeUndefined();
  });

  it('refuses bad server names and resources with invalid_config', () => {
    expect(codeOf(() => credentialKey('', 'https://x/'))).toBe('invalid_config');
    expect(codeOf(() => credentialKey('a b', 'https://x/'))).toBe('invalid_config');
    expect(codeOf(() => credentialKey('a', 'file:///etc/passwd'))).toBe('invalid_config');
    expect(codeOf(() => credentialKey('a', 'not a url'))).toBe('invalid_config');
  });
});
