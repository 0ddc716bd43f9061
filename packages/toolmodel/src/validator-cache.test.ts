import { dereference } from '@cfworker/json-schema';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Tool } from './tool.js';
import { createValidator } from './validator.js';

// The real library, with its schema preparation step counted.
vi.mock('@cfworker/json-schema', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@cfworker/json-schema')>();
  return { ...actual, dereference: vi.fn(actual.dereference) };
});

describe('createValidator cache', () => {
  beforeEach(() => {
    vi.mocked(dereference).mockClear();
  });

  it('prepares a schema once, on first use, and reuses it', () => {
    const validator = createValidator();
    const tool: Tool = {
      name: 'search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    };
    expect(dereference).not.toHaveBeenCalled();
    expect(validator.validateInput(tool, { q: 'x' }).valid).toBe(true);
    expect(validator.validateInput(tool, { q: 1 }).valid).toBe(false);
    expect(validator.validate(tool.inputSchema, {}).valid).toBe(true);
    expect(dereference).toHaveBeenCalledTimes(1);
  });

  it('prepares an equal but distinct schema object again', () => {
    const validator = createValidator();
    validator.validate({ type: 'string' }, 'a');
    validator.validate({ type: 'string' }, 'a');
    expect(dereference).toHaveBeenCalledTimes(2);
  });

  it('keeps a schema that cannot be used from being prepared again', () => {
    const validator = createValidator();
    const schema = { $ref: 'https://example.com/elsewhere.json' };
    expect(() => validator.validate(schema, 1)).toThrow();
    expect(() => validator.validate(schema, 1)).toThrow();
    expect(dereference).toHaveBeenCalledTimes(1);
  });
});
