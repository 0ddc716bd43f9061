import { describe, expect, it } from 'vitest';
import { backendKey, validateBackend, type ToolBackend } from './backend.js';
import { errorCodeOf } from './testing/error-code.js';

describe('validateBackend', () => {
  it('accepts the three kinds', () => {
    expect(() => {
      validateBackend({ kind: 'mcp', mcp: { serverName: 'github' } });
      validateBackend({
        kind: 'provider',
        provider: { providerId: 'openai', toolId: 'web_search' },
      });
      validateBackend({ kind: 'local', local: { name: 'echo' } });
    }).not.toThrow();
  });

  it.each([
    ['null', null],
    ['a string', 'mcp'],
    ['an unknown kind', { kind: 'grpc', grpc: {} }],
    ['a missing body', { kind: 'mcp' }],
    ['an empty server name', { kind: 'mcp', mcp: { serverName: '' } }],
    ['a numeric server name', { kind: 'mcp', mcp: { serverName: 7 } }],
    ['a provider without toolId', { kind: 'provider', provider: { providerId: 'p' } }],
    ['a control character', { kind: 'local', local: { name: 'a\u0000b' } }],
    ['an overlong name', { kind: 'local', local: { name: 'x'.repeat(257) } }],
  ])('throws invalid_backend for %s', (_label, backend) => {
    expect(
      errorCodeOf(() => {
        validateBackend(backend);
      }),
    ).toBe('invalid_backend');
  });
});

describe('backendKey', () => {
  it('is the same for equal bindings and differs across kinds', () => {
    const a: ToolBackend = { kind: 'mcp', mcp: { serverName: 'x' } };
    const b: ToolBackend = { kind: 'mcp', mcp: { serverName: 'x' } };
    const c: ToolBackend = { kind: 'local', local: { name: 'x' } };
    expect(backendKey(a)).toBe(backendKey(b));
    expect(backendKey(a)).not.toBe(backendKey(c));
  });

  it('never lets separators in provider IDs collide', () => {
    const one: ToolBackend = { kind: 'provider', provider: { providerId: 'a/b', toolId: 'c' } };
    const two: ToolBackend = { kind: 'provider', provider: { providerId: 'a', toolId: 'b/c' } };
    expect(backendKey(one)).not.toBe(backendKey(two));
  });
});
