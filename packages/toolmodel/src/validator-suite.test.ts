import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ToolError } from './errors.js';
import type { JsonSchema } from './tool.js';
import { createValidator } from './validator.js';

// The official JSON-Schema-Test-Suite, vendored with its licence (testdata/json-schema-test-suite/
// README.md names the commit and what is kept); the files and groups passed over are below.
const suiteRoot = fileURLToPath(new URL('./testdata/json-schema-test-suite', import.meta.url));

interface SuiteGroup {
  description: string;
  schema: JsonSchema;
  tests: { description: string; data: unknown; valid: boolean }[];
}

// Whole files left out, with the reason.
const SKIPPED_FILES: Record<string, string> = {
  'refRemote.json': 'needs remote schemas; external $ref is never fetched by design',
  'dynamicRef.json': '$dynamicRef/$dynamicAnchor are not supported by @cfworker/json-schema',
  'vocabulary.json': '$vocabulary is not enforced',
  'format.json': 'asserts that format is annotation-only; toolplane asserts known formats',
  'content.json': 'contentEncoding/contentMediaType are annotations, not enforced',
};

// Single groups ("file: group") or cases ("file: group: case") left out, with the reason.
const SKIPPED: Record<string, string> = {
  'defs.json: validate definition against metaschema':
    'refers to the 2020-12 meta-schema by URI, which is external and never fetched',
  'definitions.json: validate definition against metaschema':
    'refers to the draft-07 meta-schema by URI, which is external and never fetched',
  'ref.json: remote ref, containing refs itself':
    'refers to the meta-schema by URI, which is external and never fetched',
  'ref.json: order of evaluation: $id and $anchor and $ref':
    '@cfworker/json-schema resolves a $ref beside an $id against the outer base URI',
  'unevaluatedItems.json: unevaluatedItems with $dynamicRef': '$dynamicRef is not supported',
  'unevaluatedProperties.json: unevaluatedProperties with $dynamicRef':
    '$dynamicRef is not supported',
};

const REMOTE = /^https?:\/\/localhost:1234\//;

function groupsOf(dialect: string): [string, SuiteGroup[]][] {
  const folder = join(suiteRoot, dialect);
  return readdirSync(folder)
    .filter((file) => file.endsWith('.json') && SKIPPED_FILES[file] === undefined)
    .sort()
    .map((file) => [file, JSON.parse(readFileSync(join(folder, file), 'utf8')) as SuiteGroup[]]);
}

function usesRemote(schema: unknown): boolean {
  return JSON.stringify(schema).includes('localhost:1234') || REMOTE.test(String(schema));
}

describe('JSON-Schema-Test-Suite', () => {
  for (const [dialect, $schema] of [
    ['draft2020-12', 'https://json-schema.org/draft/2020-12/schema'],
    ['draft7', 'http://json-schema.org/draft-07/schema#'],
  ] as const) {
    describe(dialect, () => {
      for (const [file, groups] of groupsOf(dialect)) {
        describe(file, () => {
          for (const group of groups) {
            const groupKey = `${file}: ${group.description}`;
            // Groups whose schema pulls a remote document need fetching, which is refused.
            const skipGroup =
              SKIPPED[groupKey] ?? (usesRemote(group.schema) ? 'remote $ref' : undefined);
            describe.skipIf(skipGroup !== undefined)(group.description, () => {
              const schema =
                typeof group.schema === 'object' && !('$schema' in group.schema)
                  ? { $schema, ...group.schema }
                  : group.schema;
              const validator = createValidator();
              for (const test of group.tests) {
                const skip = SKIPPED[`${groupKey}: ${test.description}`];
                it.skipIf(skip !== undefined)(
                  `${test.valid ? 'accepts' : 'rejects'} ${test.description}`,
                  () => {
                    let valid: boolean | string;
                    try {
                      valid = validator.validate(schema, test.data).valid;
                    } catch (error) {
                      valid = ToolError.isInstance(error) ? error.code : 'crash';
                    }
                    expect(valid).toBe(test.valid);
                  },
                );
              }
            });
          }
        });
      }
    });
  }
});
