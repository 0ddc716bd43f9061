import { ToolError } from './errors.js';
import type { JsonSchema } from './tool.js';

/** A JSON Schema dialect a {@link SchemaValidator} must support. */
export type SchemaDialect = '2020-12' | 'draft-07';

// The dialects toolplane validates, as error messages name them.
const SUPPORTED_SCHEMA_DIALECTS: readonly string[] = [
  'https://json-schema.org/draft/2020-12/schema (the default when $schema is absent)',
  'http://json-schema.org/draft-07/schema#',
];

const DIALECT_BY_URI = new Map<string, SchemaDialect>();
for (const scheme of ['http', 'https']) {
  for (const hash of ['', '#']) {
    DIALECT_BY_URI.set(`${scheme}://json-schema.org/draft/2020-12/schema${hash}`, '2020-12');
    DIALECT_BY_URI.set(`${scheme}://json-schema.org/draft-07/schema${hash}`, 'draft-07');
  }
}

/**
 * The dialect a schema is written in, read from its `$schema`: absent means 2020-12, and the
 * 2020-12 and draft-07 meta-schema URIs are accepted over http or https, with or without a
 * trailing `#`. Boolean schemas are 2020-12. Used by every {@link SchemaValidator}, so all of
 * them accept and refuse the same schemas.
 *
 * @throws {ToolError} `unsupported_schema` for any other `$schema`, naming it and the supported
 * dialects.
 */
export function schemaDialect(schema: JsonSchema): SchemaDialect {
  if (typeof schema === 'boolean' || !Object.hasOwn(schema, '$schema')) return '2020-12';
  const uri = schema.$schema;
  const dialect = typeof uri === 'string' ? DIALECT_BY_URI.get(uri) : undefined;
  if (dialect !== undefined) return dialect;
  const named =
    typeof uri === 'string' ? JSON.stringify(uri) : `a ${uri === null ? 'null' : typeof uri}`;
  throw new ToolError(
    'unsupported_schema',
    `unsupported JSON Schema dialect: $schema is ${named}; use one of ${SUPPORTED_SCHEMA_DIALECTS.join(
      ', ',
    )}, or omit $schema for 2020-12`,
  );
}
