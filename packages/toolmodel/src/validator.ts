import {
  dereference,
  validate as cfworkerValidate,
  type OutputUnit,
  type Schema,
  type SchemaDraft,
  type ValidationResult,
} from '@cfworker/json-schema';
import { ToolError, type SchemaValidationError } from './errors.js';
import { checkCount, optionKeys, refuseUnknownOptions } from './option-checks.js';
import { schemaDialect } from './schema-dialect.js';
import { subschemaKeywords } from './schema-keywords.js';
import {
  createSchemaValidator,
  falseSchemaError,
  stackOverflow,
  unresolvedRef,
  VALID,
  type SchemaValidationResult,
  type SchemaValidator,
} from './schema-validator.js';
import { walkSchema } from './schema-walk.js';
import { assertsUrlFormat, withLinearFormats } from './validator-formats.js';
import { linearPatterns, withLinearPatterns, type LinearPatterns } from './validator-patterns.js';

// The interface lives in schema-validator.ts, which builds it, so that module need not import
// this one.
export type { SchemaValidationResult, SchemaValidator } from './schema-validator.js';

/** Options for {@link createValidator}. */
export interface ValidatorOptions {
  /** At most this many errors are reported per invalid value (default {@link DEFAULT_MAX_ERRORS}). */
  readonly maxErrors?: number;
}

const KNOWN = optionKeys<ValidatorOptions>({ maxErrors: true });

/** How many errors a {@link SchemaValidator} reports per invalid value unless told otherwise. */
export const DEFAULT_MAX_ERRORS = 20;

type SchemaObject = Record<string, unknown>;

interface Prepared {
  readonly schema: SchemaObject;
  readonly draft: SchemaDraft;
  readonly lookup: Record<string, Schema | boolean>;
  /** The `{ not: {} }` objects that stand in for nested `false` schemas. */
  readonly falseSchemas: WeakSet<object>;
  /** Its patterns that the linear-time engine tests. */
  readonly patterns: LinearPatterns;
  /** Whether it asserts the `url` format, which runs on the linear-time check. */
  readonly urls: boolean;
}

// Keywords whose error only says "a subschema failed"; the subschema's own errors say what.
// `not` and `if` have no such error, and `anyOf`/`oneOf` are ALTERNATIVES below.
const WRAPPERS = new Set([
  '$ref',
  '$recursiveRef',
  ...subschemaKeywords(
    ({ name, target }) => target !== 'none' && !['not', 'if', 'anyOf', 'oneOf'].includes(name),
  ),
]);
// Keywords whose branches' errors mislead on their own ("must be a string" when a number would
// also do): the keyword's own error is kept instead.
const ALTERNATIVES = new Set(['anyOf', 'oneOf']);

/**
 * Creates the default {@link SchemaValidator}, built on `@cfworker/json-schema`: no code
 * generation, so it runs on every runtime, edge runtimes included.
 *
 * Schemas without `$schema` are JSON Schema 2020-12; draft-07 is used when `$schema` names it
 * (see {@link schemaDialect}). Each schema object is prepared once, on first use, and cached by
 * identity, so a tool's schemas are prepared once however often it is called. `$ref` resolves
 * only inside the schema (`#/$defs/x`, `#/definitions/x`, `$id`- and `$anchor`-relative); other
 * references are never fetched.
 *
 * What is enforced differs from the letter of the spec in a few places:
 * - `format` is asserted for the formats the library knows (`date`, `time`, `date-time`,
 *   `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uri`, `uri-reference`, `uri-template`,
 *   `url`, `uuid`, `regex`, `json-pointer`, `json-pointer-uri-fragment`,
 *   `relative-json-pointer`); unknown formats are ignored.
 * - `contentEncoding`, `contentMediaType`, `contentSchema`, `$dynamicRef` and `$dynamicAnchor`
 *   are not enforced, nor are `$vocabulary` declarations.
 * - `pattern` and `patternProperties` keys run on a linear-time engine (see {@link linearPattern}),
 *   so no value can make one backtrack for seconds; backreferences and lookaround, which it cannot
 *   express, run on JavaScript's engine. The `url` format is checked in linear time too (see
 *   {@link isUrlFormat}), with the library's verdicts.
 * - Recursion is bounded by the call stack: a schema that refers to itself without descending
 *   into the value (`{"$ref": "#"}`), or schema and value nested deeper than about 500 levels,
 *   is reported as `invalid_schema` instead of crashing.
 *
 * @throws {ToolError} from `validate`: `unsupported_schema` for another dialect;
 * `invalid_schema` for a `$ref` that does not resolve inside the schema, an invalid `pattern`,
 * a schema that is not plain JSON, or one too deep to evaluate; `invalid_argument` for a value
 * that is not JSON (e.g. holding `undefined` or a `bigint`).
 */
export function createValidator(options: ValidatorOptions = {}): SchemaValidator {
  refuseUnknownOptions(options, KNOWN, 'createValidator');
  const maxErrors = options.maxErrors ?? DEFAULT_MAX_ERRORS;
  // 0 or NaN reported every error, however many.
  checkCount(maxErrors, 'createValidator: maxErrors');
  return createSchemaValidator((schema) => {
    const prepared = prepare(schema);
    return (value) => run(prepared, value, maxErrors);
  });
}

function prepare(schema: SchemaObject): Prepared {
  const draft: SchemaDraft = schemaDialect(schema) === 'draft-07' ? '7' : '2020-12';
  // The library annotates every subschema it sees; a private copy keeps callers' objects
  // (frozen or shared between tools) untouched.
  let copy: SchemaObject;
  try {
    copy = structuredClone(schema);
  } catch (error) {
    throw new ToolError(
      'invalid_schema',
      `the schema is not plain JSON (${describe(error)}); schemas may hold only objects, arrays, strings, numbers, booleans and null`,
      { cause: error },
    );
  }
  // Nested `false` schemas become `{ not: {} }`, so a rejection is reported with a schema
  // location (the library reports a bare `false` at the value's) and named after its holder.
  const falseSchemas = new WeakSet<object>();
  const { refs } = walkSchema(copy, {
    replaceFalse: () => {
      const stand = { not: {} };
      falseSchemas.add(stand);
      return stand;
    },
  });
  const lookup = dereference(copy);
  for (const node of refs) {
    const target = (node as { __absolute_ref__?: unknown }).__absolute_ref__ ?? node.$ref;
    if (typeof target !== 'string' || lookup[target] === undefined) throw unresolvedRef(node.$ref);
  }
  const nodes = Object.values(lookup);
  const patterns = linearPatterns(nodes);
  return { schema: copy, draft, lookup, falseSchemas, patterns, urls: assertsUrlFormat(nodes) };
}

function run(prepared: Prepared, value: unknown, maxErrors: number): SchemaValidationResult {
  let output: ValidationResult;
  try {
    output = withLinearFormats(prepared.urls, () =>
      withLinearPatterns(prepared.patterns, () =>
        cfworkerValidate(value, prepared.schema, prepared.draft, prepared.lookup, false),
      ),
    );
  } catch (error) {
    throw runError(error);
  }
  return output.valid
    ? VALID
    : { valid: false, errors: simplifyErrors(prepared, output.errors, maxErrors) };
}

function runError(error: unknown): ToolError {
  const overflow = stackOverflow(error);
  if (overflow !== undefined) return overflow;
  if (
    error instanceof URIError ||
    (error instanceof Error && error.message.startsWith('Instances of'))
  ) {
    return new ToolError(
      'invalid_argument',
      `the value is not JSON (${describe(error)}); pass only objects, arrays, strings, numbers, booleans and null`,
      { cause: error },
    );
  }
  return new ToolError('invalid_schema', `the schema cannot be evaluated: ${describe(error)}`, {
    cause: error,
  });
}

/**
 * Keeps the errors that say what is wrong: drops "a subschema had errors" wrappers that have a
 * more specific error beneath them, keeps an `anyOf`/`oneOf` failure instead of its branches',
 * and converts locations to JSON Pointers.
 */
function simplifyErrors(
  prepared: Prepared,
  units: readonly OutputUnit[],
  maxErrors: number,
): SchemaValidationError[] {
  const ancestors = new Set<string>();
  const alternatives: string[] = [];
  for (const unit of units) {
    const location = unit.keywordLocation;
    for (let cut = location.lastIndexOf('/'); cut > 0; cut = location.lastIndexOf('/', cut - 1)) {
      ancestors.add(location.slice(0, cut));
    }
    if (ALTERNATIVES.has(unit.keyword)) alternatives.push(`${location}/`);
  }
  const errors: SchemaValidationError[] = [];
  for (const unit of units) {
    const location = unit.keywordLocation;
    if (WRAPPERS.has(unit.keyword) && ancestors.has(location)) continue;
    // "does not match then/else" sits at `/if`, its specifics at `/then` or `/else`.
    if (unit.keyword === 'if') continue;
    if (alternatives.some((prefix) => location.startsWith(prefix))) continue;
    errors.push(toError(prepared, unit));
    if (errors.length === maxErrors) break;
  }
  return errors;
}

function toError(prepared: Prepared, unit: OutputUnit): SchemaValidationError {
  const path = decodeURIComponent(unit.instanceLocation.slice(1));
  if (unit.keyword === 'not' && unit.keywordLocation.endsWith('/not')) {
    // Only a stand-in for `false` is named after its holder; a real `not` keeps its own message.
    const holder = unit.keywordLocation.slice(1, -'/not'.length);
    const node = resolvePointer(prepared, holder);
    if (node !== undefined && prepared.falseSchemas.has(node))
      return falseSchemaError(holder, path);
  }
  return { path, keyword: unit.keyword, message: message(unit) };
}

// The subschema at an evaluation path (a JSON Pointer that may pass through `$ref`s), or
// undefined when it leads nowhere.
function resolvePointer(prepared: Prepared, pointer: string): object | undefined {
  let node: unknown = prepared.schema;
  for (const raw of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    const here = node as Record<string, unknown>;
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (key === '$ref' && typeof here.$ref === 'string') {
      // The library notes each reference's absolute form on the node when it dereferences.
      const target = here.__absolute_ref__ ?? here.$ref;
      node = typeof target === 'string' ? prepared.lookup[target] : undefined;
    } else {
      node = Object.hasOwn(here, key) ? here[key] : undefined;
    }
  }
  return typeof node === 'object' && node !== null ? node : undefined;
}

function message(unit: OutputUnit): string {
  const text = unit.error.replace(/\.$/, '');
  const type = /^Instance type "(\w+)" is invalid\. Expected (.+)$/.exec(text);
  if (type !== null) {
    return `must be ${type[2]?.replaceAll('"', '').replaceAll(', ', ' or ') ?? ''}, got ${type[1] ?? ''}`;
  }
  const required = /^Instance does not have required property (.+)$/.exec(text);
  if (required !== null) return `missing required property ${required[1] ?? ''}`;
  switch (unit.keyword) {
    case 'maxProperties':
      return text.replace('at least', 'at most').replace(/^Instance does not have/, 'must have');
    case 'minProperties':
      return text.replace(/^Instance does not have/, 'must have');
    case 'anyOf':
      return 'does not match any of the allowed alternatives (anyOf)';
    case 'oneOf':
      return text.replace(
        /^Instance does not match exactly one subschema/,
        'must match exactly one alternative (oneOf)',
      );
    case 'not':
      return 'must not match the "not" schema';
    default:
      return text.replace(/^Instance /, 'value ');
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n', 1)[0] ?? error.name) : String(error);
}
