import { describe, expect, it } from 'vitest';
import { createScopePolicy } from './scope-policy.js';

const read = { namespace: 'fs', name: 'read_file', tags: ['read'] };
const write = { namespace: 'fs', name: 'write_file', tags: ['write'] };
const issue = { namespace: 'github', name: 'create_issue' };

describe('createScopePolicy', () => {
  const policy = createScopePolicy({
    'fs:read': { tags: ['read'] },
    'github:issues': { tools: ['github:create_issue'] },
    echo: { tools: ['read_file'] },
    admin: { namespaces: ['*'] },
    fs: { namespaces: ['fs'] },
  });

  it('grants a tool when one of the caller scopes names its namespace, tool or tag', () => {
    expect(policy.allows(['fs:read'], read)).toBe(true);
    expect(policy.allows(['fs:read'], write)).toBe(false);
    expect(policy.allows(['github:issues'], issue)).toBe(true);
    expect(policy.allows(['echo'], read)).toBe(true);
    expect(policy.allows(['fs'], write)).toBe(true);
    expect(policy.allows(['admin'], issue)).toBe(true);
  });

  it('grants nothing to a caller with none of the mapped scopes', () => {
    for (const tool of [read, write, issue]) {
      expect(policy.allows([], tool)).toBe(false);
      expect(policy.allows(['openid', 'profile', '__proto__', 'toString'], tool)).toBe(false);
    }
  });

  it('names every scope that would be enough, sorted', () => {
    expect(policy.scopesFor(write)).toEqual(['admin', 'fs']);
    expect(policy.scopesFor(read)).toEqual(['admin', 'echo', 'fs', 'fs:read']);
    expect(policy.scopes).toEqual(['admin', 'echo', 'fs', 'fs:read', 'github:issues']);
  });

  it('restricts nothing when no scope is mapped', () => {
    const open = createScopePolicy(undefined);
    expect(open.restricts).toBe(false);
    expect(open.allows([], issue)).toBe(true);
  });

  it('takes a __proto__ key as a scope name, not a prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"namespaces": ["fs"]}}') as Record<string, object>;
    const odd = createScopePolicy(parsed);
    expect(odd.allows(['__proto__'], read)).toBe(true);
    expect(odd.allows(['constructor'], read)).toBe(false);
  });

  it('refuses bad configuration with invalid_config', () => {
    const bad: unknown[] = [
      { 'has space': {} },
      { 'quote"': {} },
      { s: null },
      { s: [] },
      { s: { namespace: ['fs'] } },
      { s: { tools: 'fs:read' } },
      { s: { tags: [1] } },
      { s: { tags: [''] } },
    ];
    for (const scopes of bad) {
      expect(() => createScopePolicy(scopes as never)).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
    }
  });
});
