import { errorMessageOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';
import type { ConnectorOAuthOptions } from './client-options.js';
import { createConnectorOAuth } from './connector-oauth.js';
import { MemoryCredentialStore } from './credential-store.js';

const base = { server: 'prot', url: 'http://127.0.0.1:9/mcp', store: new MemoryCredentialStore() };

describe('createConnectorOAuth options', () => {
  it('refuses a key it does not take, naming the one meant', () => {
    const misspelt = { ...base, grant: 'client_credentials', clientId: 'ci', clientSecet: 's' };
    expect(errorMessageOf(() => createConnectorOAuth(misspelt as never), 'invalid_config')).toBe(
      'createConnectorOAuth: unknown option "clientSecet"; did you mean "clientSecret"?',
    );
    expect(
      errorMessageOf(
        () => createConnectorOAuth({ ...base, scope: ['read'] } as never),
        'invalid_config',
      ),
    ).toBe('createConnectorOAuth: unknown option "scope"; did you mean "scopes"?');
  });

  it('takes every key it documents', () => {
    const every: Required<Omit<ConnectorOAuthOptions, 'privateKey' | 'privateKeyAlg'>> = {
      ...base,
      grant: 'authorization_code',
      clientId: 'ci',
      clientSecret: 's',
      scopes: ['read'],
      clientMetadataUrl: 'https://client.example/metadata.json',
      clientName: 'tests',
      refreshBeforeMs: 30_000,
      interactive: () => undefined,
      fetch,
      requestTimeoutMs: 5_000,
      onUnsaved: () => undefined,
    };
    expect(createConnectorOAuth(every).server).toBe('prot');
  });
});
