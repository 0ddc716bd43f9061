import { describe, expect, it } from 'vitest';
import { createLocalRegistry } from './local-registry.js';

describe('createLocalRegistry', () => {
  it('returns the handler registered under a name', () => {
    const handler = () => 'x';
    const registry = createLocalRegistry().register('echo', handler);
    expect(registry.get('echo')).toBe(handler);
    expect(registry.has('echo')).toBe(true);
    expect(registry.names()).toEqual(['echo']);
  });

  it('replaces a handler registered again and removes one on unregister', () => {
    const first = () => 1;
    const second = () => 2;
    const registry = createLocalRegistry().register('n', first).register('n', second);
    expect(registry.get('n')).toBe(second);
    expect(registry.unregister('n')).toBe(true);
    expect(registry.get('n')).toBeUndefined();
    expect(registry.unregister('n')).toBe(false);
  });

  it('never returns inherited properties as handlers', () => {
    const registry = createLocalRegistry();
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      expect(registry.get(name)).toBeUndefined();
      expect(registry.has(name)).toBe(false);
    }
  });

  it('treats __proto__ as an ordinary name', () => {
    const handler = () => 'proto';
    const registry = createLocalRegistry().register('__proto__', handler);
    expect(registry.get('__proto__')).toBe(handler);
    expect(registry.get('toString')).toBeUndefined();
  });

  it('rejects an empty name or a non-function with invalid_argument', () => {
    const registry = createLocalRegistry();
    expect(() => registry.register('', () => 1)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => registry.register('x', 'nope' as unknown as () => unknown)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
