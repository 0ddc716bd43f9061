import { describe, expect, it } from 'vitest';
import { pointerToken, rejectedWith, ToolError } from './errors.js';

describe('ToolError', () => {
  it('carries its code, context and cause', () => {
    const cause = new Error('socket closed');
    const error = new ToolError('execution', 'tool "fs:read" failed', {
      cause,
      toolId: 'fs:read',
      op: 'execute',
      backend: { kind: 'mcp', mcp: { serverName: 'fs' } },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolError');
    expect(error.code).toBe('execution');
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toEqual({
      code: 'execution',
      message: 'tool "fs:read" failed',
      toolId: 'fs:read',
      op: 'execute',
      backend: { kind: 'mcp', mcp: { serverName: 'fs' } },
    });
  });

  it('is recognised by isInstance across copies of the package', () => {
    // Another installed copy has its own class but shares the registered symbol.
    const foreign = Object.assign(new Error('x'), { code: 'execution' });
    Object.defineProperty(foreign, Symbol.for('@toolplane/ToolError'), { value: true });
    expect(ToolError.isInstance(foreign)).toBe(true);
    expect(ToolError.isInstance(new ToolError('internal', 'x'))).toBe(true);
  });

  it('is not fooled by look-alikes', () => {
    expect(ToolError.isInstance(new Error('x'))).toBe(false);
    expect(ToolError.isInstance({ code: 'execution', message: 'x' })).toBe(false);
    expect(ToolError.isInstance(null)).toBe(false);
    expect(ToolError.isInstance('ToolError')).toBe(false);
  });

  it('leaves cause unset when none is given', () => {
    expect('cause' in new ToolError('internal', 'x')).toBe(false);
  });
});

describe('pointerToken', () => {
  it('escapes ~ before / so every key reads back as itself (RFC 6901)', () => {
    expect(pointerToken('a/b')).toBe('a~1b');
    expect(pointerToken('~1')).toBe('~01');
    expect(pointerToken(3)).toBe('3');
    const unescape = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');
    for (const key of ['', 'plain', '~/~', '/~1/', '~0~1']) {
      expect(unescape(pointerToken(key))).toBe(key);
    }
  });
});

describe('rejectedWith', () => {
  it('answers with a promise rejected with the error, never a throw', async () => {
    const error = new ToolError('invalid_argument', 'no');
    let thrown = false;
    let pending: Promise<never> | undefined;
    try {
      pending = rejectedWith(error);
    } catch {
      thrown = true;
    }
    expect(thrown).toBe(false);
    await expect(pending).rejects.toBe(error);
  });
});
