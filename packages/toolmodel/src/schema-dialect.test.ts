import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolError } from './errors.js';
import { schemaDialect } from './schema-dialect.js';

describe('schemaDialect', () => {
  it('returns 2020-12 when $schema is absent or the schema is boolean', () => {
    expect(schemaDialect({ type: 'object' })).toBe('2020-12');
    expect(schemaDialect(true)).toBe('2020-12');
  });

  it('returns draft-07 for the draft-07 URI over http or https, with or without #', () => {
    for (const scheme of ['http', 'https']) {
      for (const hash of ['', '#']) {
        expect(
          schemaDialect({ $schema: `${scheme}://json-schema.org/draft-07/schema${hash}` }),
        ).toBe('draft-07');
        expect(
          schemaDialect({ $schema: `${scheme}://json-schema.org/draft/2020-12/schema${hash}` }),
        ).toBe('2020-12');
      }
    }
  });

  it('ignores an inherited $schema', () => {
    const schema = Object.create({ $schema: 'http://json-schema.org/draft-04/schema#' }) as Record<
      string,
      unknown
    >;
    expect(schemaDialect(schema)).toBe('2020-12');
  });

  it('throws unsupported_schema naming the dialect for any other $schema', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()),
        ($schema) => {
          fc.pre(
            typeof $schema !== 'string' ||
              !/json-schema\.org\/(draft-07|draft\/2020-12)\/schema#?$/.test($schema),
          );
          try {
            schemaDialect({ $schema });
            expect.unreachable();
          } catch (error) {
            expect(ToolError.isInstance(error) && error.code).toBe('unsupported_schema');
            if (typeof $schema === 'string')
              expect((error as Error).message).toContain(JSON.stringify($schema));
          }
        },
      ),
    );
  });
});
