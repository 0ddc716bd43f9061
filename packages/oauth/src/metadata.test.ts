import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discoveryUrls } from './discovery.js';
import { canonicalResource } from '@toolplane/toolmodel';
import { bearerChallenge, metadataPath, metadataUrl } from './metadata.js';

describe('canonicalResource', () => {
  it('lower-cases scheme and host and drops a trailing slash', () => {
    expect(canonicalResource('HTTP://LocalHost:8808/mcp/')).toBe('http://localhost:8808/mcp');
    expect(canonicalResource('https://example.com/')).toBe('https://example.com');
    expect(canonicalResource('https://example.com:443/a/B')).toBe('https://example.com/a/B');
  });

  it('refuses what is not an http(s) URI without fragment', () => {
    for (const bad of ['mcp', 'ftp://x/mcp', 'http://x/mcp#frag']) {
      expect(() => canonicalResource(bad)).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
    }
  });
});

describe('metadataPath and metadataUrl', () => {
  it('insert the resource path after the well-known prefix (RFC 9728 §3.1)', () => {
    expect(metadataPath('http://127.0.0.1:8808/mcp')).toBe(
      '/.well-known/oauth-protected-resource/mcp',
    );
    expect(metadataPath('https://example.com')).toBe('/.well-known/oauth-protected-resource');
    expect(metadataUrl('https://example.com/a/mcp')).toBe(
      'https://example.com/.well-known/oauth-protected-resource/a/mcp',
    );
  });
});

describe('bearerChallenge', () => {
  it('quotes every value and strips what cannot be quoted', () => {
    expect(
      bearerChallenge({
        resourceMetadata: 'https://x/.well-known/oauth-protected-resource',
        error: 'invalid_token',
        description: 'bad "token"\r\nInjected: header\\',
        scopes: ['a', 'b'],
      }),
    ).toBe(
      'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", error="invalid_token", error_description="bad tokenInjected: header", scope="a b"',
    );
  });
});

describe('bearerChallenge, any description', () => {
  it('stays one header of quoted values that no description can break out of', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.array(fc.string()), (description, scopes) => {
        const header = bearerChallenge({
          resourceMetadata: 'https://x/.well-known/oauth-protected-resource',
          error: 'invalid_token',
          description,
          scopes,
        });
        expect(header).not.toMatch(/[\r\n\0]/);
        // Exactly the parameters written, each a quoted string with no quote or backslash inside.
        const params = header.slice('Bearer '.length).split(/, (?=[a-z_]+=")/);
        for (const param of params) expect(param).toMatch(/^[a-z_]+="[^"\\]*"$/);
        expect(params.length).toBeLessThanOrEqual(4);
      }),
    );
  });
});

describe('discoveryUrls', () => {
  it('tries RFC 8414 first, then OpenID discovery, inserting an issuer path', () => {
    expect(discoveryUrls('https://as.example.com')).toEqual([
      'https://as.example.com/.well-known/oauth-authorization-server',
      'https://as.example.com/.well-known/openid-configuration',
    ]);
    expect(discoveryUrls('https://as.example.com/tenant/1')).toEqual([
      'https://as.example.com/.well-known/oauth-authorization-server/tenant/1',
      'https://as.example.com/.well-known/openid-configuration/tenant/1',
      'https://as.example.com/tenant/1/.well-known/openid-configuration',
    ]);
  });
});
