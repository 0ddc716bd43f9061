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
      { s: { prompts: 'summarize' } },
      { s: { resources: [42] } },
      { s: { resource: ['file:///*'] } },
    ];
    for (const scopes of bad) {
      expect(() => createScopePolicy(scopes as never)).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
    }
  });
});

describe('createScopePolicy: prompts and resources', () => {
  const policy = createScopePolicy({
    docs: { resources: ['file:///docs/*', 'memo://pinned'], prompts: ['summarize'] },
    review: { prompts: ['github:review_pr'] },
    fs: { namespaces: ['fs'] },
    admin: { namespaces: ['*'] },
    'tools:read': { tags: ['read'] },
  });
  const summarize = { namespace: 'builtin', name: 'summarize' };
  const review = { namespace: 'github', name: 'review_pr' };
  const otherReview = { namespace: 'gitlab', name: 'review_pr' };

  it('grants prompts by bare name, namespace:name, namespace or *', () => {
    expect(policy.allowsPrompt(['docs'], summarize)).toBe(true);
    expect(policy.allowsPrompt(['review'], review)).toBe(true);
    expect(policy.allowsPrompt(['review'], otherReview)).toBe(false);
    expect(policy.allowsPrompt(['fs'], { namespace: 'fs', name: 'any' })).toBe(true);
    expect(policy.allowsPrompt(['admin'], otherReview)).toBe(true);
    expect(policy.scopesForPrompt(review)).toEqual(['admin', 'review']);
  });

  it('grants resources by exact URI, * pattern, or namespace', () => {
    const doc = (uri: string) => ({ namespace: 'files', uri });
    expect(policy.allowsResource(['docs'], doc('file:///docs/a/b.md'))).toBe(true);
    expect(policy.allowsResource(['docs'], doc('file:///docs/'))).toBe(true);
    expect(policy.allowsResource(['docs'], doc('file:///etc/passwd'))).toBe(false);
    expect(policy.allowsResource(['docs'], doc('file:///docs'))).toBe(false);
    expect(policy.allowsResource(['docs'], doc('memo://pinned'))).toBe(true);
    expect(policy.allowsResource(['docs'], doc('memo://pinned/2'))).toBe(false);
    // A template is judged by its URI template text.
    expect(policy.allowsResource(['docs'], doc('file:///docs/{path}'))).toBe(true);
    expect(policy.allowsResource(['fs'], { namespace: 'fs', uri: 'x://y' })).toBe(true);
    expect(policy.scopesForResource(doc('file:///docs/x'))).toEqual(['admin', 'docs']);
  });

  it('treats regular-expression characters in a pattern as themselves', () => {
    const odd = createScopePolicy({ s: { resources: ['a.b://(x)+/*?'] } });
    expect(odd.allowsResource(['s'], { namespace: 'n', uri: 'a.b://(x)+/anything?' })).toBe(true);
    expect(odd.allowsResource(['s'], { namespace: 'n', uri: 'aXb://(x)+/anything?' })).toBe(false);
    expect(odd.allowsResource(['s'], { namespace: 'n', uri: 'a.b://xx/anything?' })).toBe(false);
  });

  it('matches several stars in order, and a long hostile URI quickly and correctly', () => {
    const stars = createScopePolicy({ s: { resources: ['a*b*c*d*e'] } });
    const allow = (uri: string) => stars.allowsResource(['s'], { namespace: 'n', uri });
    expect(allow('abcde')).toBe(true);
    expect(allow('a--b--c--d--e')).toBe(true);
    expect(allow('a--c--b--d--e')).toBe(false);
    expect(allow('abcdeX')).toBe(false);
    // A regular expression would backtrack for a long time here; the matcher does not.
    expect(allow(`a${'b'.repeat(200_000)}cd`)).toBe(false);
  });

  it('gives no prompt or resource to tags (tools only), nor to unmapped scopes', () => {
    expect(policy.allowsPrompt(['tools:read'], summarize)).toBe(false);
    expect(policy.allowsResource(['tools:read'], { namespace: 'x', uri: 'a://b' })).toBe(false);
    expect(policy.allowsPrompt(['__proto__', 'constructor'], summarize)).toBe(false);
  });

  it('restricts no prompt or resource when no scope is mapped', () => {
    const open = createScopePolicy({});
    expect(open.allowsPrompt([], summarize)).toBe(true);
    expect(open.allowsResource([], { namespace: 'x', uri: 'a://b' })).toBe(true);
  });
});
