import { format } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { URL_CASES } from './testing/url-cases.js';
import { isUrlFormat } from './url-format.js';
import { createValidator } from './validator.js';

// The library's own check, taken before any validation can swap it.
const original = format.url;
const URL_SCHEMA = { type: 'string', format: 'url' };

describe('isUrlFormat', () => {
  it.each(URL_CASES)('answers %j with %s, as the library does', (text, valid) => {
    expect(isUrlFormat(text)).toBe(valid);
    expect(original?.(text)).toBe(valid);
  });

  it('answers at once where the library backtracks exponentially on a label', () => {
    const label = 'a'.repeat(40);
    expect(isUrlFormat(`http://${label}!`)).toBe(false);
    expect(isUrlFormat(`http://${label}-`)).toBe(false);
    expect(isUrlFormat(`http://${label}.${label}1`)).toBe(false);
    expect(isUrlFormat(`http://${label}.com`)).toBe(true);
  });

  it('answers at once where user info makes the library quadratic', () => {
    const long = 'a:'.repeat(300_000);
    expect(isUrlFormat(`http://${long}!`)).toBe(false);
    expect(isUrlFormat(`http://${long}@example.com`)).toBe(true);
    expect(isUrlFormat(`http://${'a@'.repeat(300_000)}`)).toBe(false);
    expect(isUrlFormat(`http://${'a/@'.repeat(300_000)} `)).toBe(false);
    expect(isUrlFormat(`http://example.com/${'a@:/'.repeat(300_000)}`)).toBe(true);
  });
});

describe('createValidator url format', () => {
  it('refuses a hostile url with a format error, at once', () => {
    const validator = createValidator();
    const result = validator.validate(URL_SCHEMA, `http://${'a'.repeat(40)}!`);
    expect(result.valid).toBe(false);
    expect(result.valid ? [] : result.errors.map((error) => error.keyword)).toEqual(['format']);
    expect(validator.validate(URL_SCHEMA, 'https://example.com/x')).toEqual({ valid: true });
  });

  it('gives the library its own url check back after each validation, a failing one too', () => {
    const validator = createValidator();
    expect(validator.validate(URL_SCHEMA, 'http://10.0.0.1').valid).toBe(false);
    expect(format.url).toBe(original);
    expect(() => validator.validate(URL_SCHEMA, 1n)).toThrow();
    expect(format.url).toBe(original);
  });

  it('checks url with the library itself where its format table is frozen', () => {
    const table = format as Record<string, unknown>;
    const descriptor = Object.getOwnPropertyDescriptor(table, 'url');
    Object.defineProperty(table, 'url', { value: original, writable: false, configurable: true });
    try {
      const validator = createValidator();
      expect(validator.validate(URL_SCHEMA, 'http://example.com')).toEqual({ valid: true });
      expect(validator.validate(URL_SCHEMA, 'http://localhost').valid).toBe(false);
    } finally {
      if (descriptor !== undefined) Object.defineProperty(table, 'url', descriptor);
    }
  });
});
