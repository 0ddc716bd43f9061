import { afterEach, describe, expect, it } from 'vitest';
import { errorCodeOf } from './testing/error-code.js';
import { createValidator } from './validator.js';
import { linearPatterns, withLinearPatterns } from './validator-patterns.js';

const REAL = RegExp;
const HOSTILE = `${'a'.repeat(30)}b`;

describe('withLinearPatterns', () => {
  afterEach(() => {
    Object.defineProperty(globalThis, 'RegExp', { value: REAL, writable: true });
  });

  it('gives the real RegExp back after each validation, a failing one too', () => {
    const validator = createValidator();
    const schema = { type: 'object', properties: { w: { type: 'string', pattern: '^(a+)+$' } } };
    expect(validator.validate(schema, { w: HOSTILE }).valid).toBe(false);
    expect(globalThis.RegExp).toBe(REAL);
    expect(errorCodeOf(() => validator.validate(schema, { w: 1n }))).toBe('invalid_argument');
    expect(globalThis.RegExp).toBe(REAL);
  });

  it('answers other sources and flags with real regular expressions meanwhile', () => {
    const made: unknown[] = [];
    withLinearPatterns(linearPatterns([{ pattern: '^(a+)+$' }]), () => {
      made.push(new RegExp('^(a+)+$', 'u'), new RegExp('^(a+)+$'), new RegExp('b', 'u'));
      made.push(RegExp('c'), /d/u);
    });
    const [linear, ...real] = made;
    expect(linear).not.toBeInstanceOf(REAL);
    expect((linear as RegExp).test(HOSTILE)).toBe(false);
    for (const each of real) expect(each).toBeInstanceOf(REAL);
    expect(real.map(String)).toEqual(['/^(a+)+$/', '/b/u', '/c/', '/d/u']);
  });

  it('validates as before where the global RegExp cannot be replaced', () => {
    Object.defineProperty(globalThis, 'RegExp', { value: REAL, writable: false });
    const validator = createValidator();
    const schema = { type: 'string', pattern: '^a+$' };
    expect(validator.validate(schema, 'aaa')).toEqual({ valid: true });
    expect(validator.validate(schema, 'aab').valid).toBe(false);
  });

  it('leaves out patterns that JavaScript cannot compile or RE2 cannot express', () => {
    const patterns = linearPatterns([
      { pattern: '^a$', patternProperties: { '^b': {}, '(?=c)': {} } },
      { pattern: '(' },
      { pattern: 7 },
      'not a schema',
    ]);
    expect([...patterns.keys()]).toEqual(['^a$', '^b']);
  });
});
