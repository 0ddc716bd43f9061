import { createResourceServer, protectedResourceMetadata } from '@toolplane/oauth';
import {
  createConnectorOAuth,
  credentialKey,
  MemoryCredentialStore,
  parseCredentialKey,
} from '@toolplane/toolkit/oauth';
import { CANONICAL_RESOURCE_CASES, errorCodeOf } from '@toolplane/toolmodel/testing';
import { describe, expect, it } from 'vitest';

// The gateway is both sides of OAuth: a resource server to its clients and an OAuth client of
// its upstreams. Each side names a resource through its own entry point; they must agree.

/** The resource the toolkit's OAuth client derives from a connector URL. */
function clientSide(url: string): string {
  const oauth = createConnectorOAuth({ server: 'fx', url, store: new MemoryCredentialStore() });
  const keyed = parseCredentialKey(credentialKey('fx', url))?.resource;
  expect(keyed).toBe(oauth.resource);
  return oauth.resource;
}

/** The resource the oauth package's resource server names for an endpoint, three ways. */
function serverSide(url: string): string {
  const byEndpoint = createResourceServer({ issuer: 'https://issuer.example' }).resource(url);
  const byAudience = createResourceServer({ issuer: 'https://issuer.example', audience: url });
  const metadata = protectedResourceMetadata({
    resource: url,
    authorizationServers: ['https://issuer.example'],
  });
  expect(byAudience.resource('https://elsewhere.example/mcp')).toBe(byEndpoint);
  expect(metadata.resource).toBe(byEndpoint);
  return byEndpoint;
}

describe('the OAuth client and the resource server', () => {
  for (const row of CANONICAL_RESOURCE_CASES) {
    it(`name ${row.input} (${row.name}) alike`, () => {
      if (row.canonical !== undefined) {
        expect(serverSide(row.input)).toBe(row.canonical);
        expect(clientSide(row.input)).toBe(row.canonical);
      } else {
        expect(errorCodeOf(() => serverSide(row.input))).toBe('invalid_config');
      }
      if (row.fragmentDropped === undefined) {
        expect(errorCodeOf(() => clientSide(row.input))).toBe('invalid_config');
      } else {
        // A client drops a fragment (it is never sent); the server it reaches names itself so.
        const client = clientSide(row.input);
        expect(client).toBe(row.fragmentDropped);
        expect(serverSide(client)).toBe(client);
      }
    });
  }
});
