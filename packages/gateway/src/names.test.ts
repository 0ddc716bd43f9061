import { describe, expect, it } from 'vitest';
import { rewriteUri, UriTable } from './names.js';

describe('UriTable', () => {
  it('keeps a URI only one namespace lists and rewrites a shared one', () => {
    const only = { namespace: 'a', uri: 'file:///only' };
    const sharedA = { namespace: 'a', uri: 'fixture://readme' };
    const sharedB = { namespace: 'b', uri: 'fixture://readme' };
    const table = new UriTable([only, sharedA, sharedB]);
    expect(table.uriOf(only)).toBe('file:///only');
    expect(table.uriOf(sharedA)).toBe(rewriteUri('a', 'fixture://readme'));
    expect(table.uriOf(sharedB)).toBe('toolplane://b/fixture%3A%2F%2Freadme');
    expect(table.resolve(table.uriOf(sharedB) ?? '')).toBe(sharedB);
    expect(() => new URL(table.uriOf(sharedA) ?? '')).not.toThrow();
  });
});
