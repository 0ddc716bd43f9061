import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Tool, ToolBackend } from '@toolplane/toolmodel';
import { defaultBackendSelector } from './backend-selector.js';

const tool: Tool = { name: 't', inputSchema: { type: 'object' } };
const backendArb: fc.Arbitrary<ToolBackend> = fc.oneof(
  fc
    .string({ minLength: 1, maxLength: 4 })
    .map((serverName) => ({ kind: 'mcp', mcp: { serverName } }) as const),
  fc
    .string({ minLength: 1, maxLength: 4 })
    .map((name) => ({ kind: 'local', local: { name } }) as const),
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ minLength: 1, maxLength: 4 }))
    .map(
      ([providerId, toolId]) => ({ kind: 'provider', provider: { providerId, toolId } }) as const,
    ),
);

describe('defaultBackendSelector', () => {
  it('prefers local over provider over mcp', () => {
    const mcp: ToolBackend = { kind: 'mcp', mcp: { serverName: 'a' } };
    const provider: ToolBackend = { kind: 'provider', provider: { providerId: 'p', toolId: 't' } };
    const local: ToolBackend = { kind: 'local', local: { name: 'z' } };
    expect(defaultBackendSelector([mcp, provider, local], tool)).toBe(local);
    expect(defaultBackendSelector([mcp, provider], tool)).toBe(provider);
    expect(defaultBackendSelector([mcp], tool)).toBe(mcp);
    expect(defaultBackendSelector([], tool)).toBeUndefined();
  });

  it('picks the same backend whatever the order', () => {
    fc.assert(
      fc.property(fc.array(backendArb, { minLength: 1, maxLength: 6 }), (backends) => {
        const chosen = defaultBackendSelector(backends, tool);
        expect(defaultBackendSelector([...backends].reverse(), tool)).toEqual(chosen);
      }),
    );
  });
});
