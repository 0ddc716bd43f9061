import { describe, expect, it } from 'vitest';
import { canonicalResource } from './resource-uri.js';
import { errorCodeOf } from './testing/error-code.js';
import { CANONICAL_RESOURCE_CASES } from './testing/resource-cases.js';

describe('canonicalResource', () => {
  for (const { name, input, canonical, fragmentDropped } of CANONICAL_RESOURCE_CASES) {
    it(`gives the table's answer for ${name} (${input})`, () => {
      if (canonical === undefined) {
        expect(errorCodeOf(() => canonicalResource(input))).toBe('invalid_config');
      } else {
        expect(canonicalResource(input)).toBe(canonical);
      }
      if (fragmentDropped === undefined) {
        expect(errorCodeOf(() => canonicalResource(input, { fragment: 'drop' }))).toBe(
          'invalid_config',
        );
      } else {
        expect(canonicalResource(input, { fragment: 'drop' })).toBe(fragmentDropped);
      }
    });
  }

  it('takes a URL object as well as a string', () => {
    expect(canonicalResource(new URL('HTTPS://Example.com:443/mcp/'))).toBe(
      'https://example.com/mcp',
    );
  });

  it('gives a canonical form back unchanged', () => {
    for (const { canonical } of CANONICAL_RESOURCE_CASES) {
      if (canonical !== undefined) expect(canonicalResource(canonical)).toBe(canonical);
    }
  });
});
