import { describe, expect, it } from 'vitest';
import { SUBSCHEMA_KEYWORDS, subschemaKeywords } from './schema-keywords.js';
import { walkSchema } from './schema-walk.js';

describe('SUBSCHEMA_KEYWORDS', () => {
  it('names each keyword once and cannot be changed', () => {
    const names = SUBSCHEMA_KEYWORDS.map(({ name }) => name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.isFrozen(SUBSCHEMA_KEYWORDS)).toBe(true);
    expect(SUBSCHEMA_KEYWORDS.every((k) => Object.isFrozen(k))).toBe(true);
  });

  it('is what the schema walk follows: a $ref under every keyword, in its shape, is found', () => {
    const ref = () => ({ $ref: '#/$defs/x' });
    for (const { name, shape } of SUBSCHEMA_KEYWORDS) {
      const value = shape === 'array' ? [ref()] : shape === 'map' ? { a: ref() } : ref();
      expect(walkSchema({ [name]: value }).refs, name).toHaveLength(1);
    }
    expect(walkSchema({ default: ref(), examples: [ref()], const: ref() }).refs).toHaveLength(0);
  });

  it('gives the 2020-12 applicators apart from draft-07 keywords and definitions', () => {
    const applicators = subschemaKeywords((k) => !k.draft07Only && k.target !== 'none');
    expect(applicators.has('prefixItems')).toBe(true);
    expect(applicators.has('additionalItems')).toBe(false);
    expect(applicators.has('dependencies')).toBe(false);
    expect(applicators.has('$defs')).toBe(false);
  });
});
