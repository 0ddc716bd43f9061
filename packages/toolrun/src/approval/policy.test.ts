import type { Tool } from '@toolplane/toolmodel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePattern, compileRules } from './policy.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

const tool = (namespace: string, name: string, annotations?: Tool['annotations']): Tool => ({
  namespace,
  name,
  inputSchema: { type: 'object' },
  ...(annotations === undefined ? {} : { annotations }),
});

describe('compilePattern', () => {
  it('matches namespace:tool globs', () => {
    const matches = compilePattern('tools', 'git{hub,lab}:delete_*');
    expect(matches('github:delete_repo')).toBe(true);
    expect(matches('gitlab:delete_branch')).toBe(true);
    expect(matches('github:create_issue')).toBe(false);
    expect(compilePattern('tools', 'fs:.hidden')('fs:.hidden')).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['delete_*', 'no namespace'],
    ['a:b:c', 'two colons'],
    ['fs:' + 'a'.repeat(300), 'too long'],
    ['fs:*a*a*a*a*a*a*a*a*b', 'too many wildcards'],
    ['fs:{a,{b,c}}', 'nested braces'],
    ['fs:{a,b', 'open brace'],
    ['fs:[a-', 'open bracket'],
    ['fs:{1..100000}', 'a range'],
    ['fs:!(a|b)', 'an extglob'],
    ['fs:../*', 'a path'],
    ['fs:a\u0000', 'a control character'],
    [42, 'a number'],
  ] as [unknown, string][])('rejects %j (%s) with invalid_argument', (pattern) => {
    expect(codeOf(() => compilePattern('tools', pattern))).toBe('invalid_argument');
  });

  it('either compiles a pattern or fails with invalid_argument, never anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (pattern) => {
        const code = codeOf(() => compilePattern('except', pattern));
        expect(code === undefined || code === 'invalid_argument').toBe(true);
      }),
    );
  });
});

describe('compileRules', () => {
  it('lets except win over tools and annotations', () => {
    const decide = compileRules({ tools: ['fs:*'], except: ['fs:rm'] });
    expect(decide(tool('fs', 'rm', { destructiveHint: true }))).toBeUndefined();
    expect(decide(tool('fs', 'ls', { readOnlyHint: true }))).toBe('tools:fs:*');
  });

  it('treats a read-only tool as not destructive whatever destructiveHint says', () => {
    const decide = compileRules({});
    expect(decide(tool('fs', 'rm', { destructiveHint: true, readOnlyHint: true }))).toBeUndefined();
    expect(decide(tool('fs', 'rm', { destructiveHint: true }))).toBe('destructive');
  });
});
