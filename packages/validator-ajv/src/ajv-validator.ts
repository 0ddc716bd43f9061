import {
  checkCount,
  createSchemaValidator,
  DEFAULT_MAX_ERRORS,
  falseSchemaError,
  isUrlFormat,
  linearPattern,
  optionKeys,
  pointerToken,
  refuseUnknownOptions,
  schemaDialect,
  stackOverflow,
  ToolError,
  unresolvedRef,
  VALID,
  type SchemaValidationError,
  type SchemaValidator,
} from '@toolplane/toolmodel';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** Options for {@link createAjvValidator}. */
export interface AjvValidatorOptions {
  /** At most this many errors are reported per invalid value (default 20). */
  readonly maxErrors?: number;
}

const KNOWN = optionKeys<AjvValidatorOptions>({ maxErrors: true });

// The formats the default validator of @toolplane/toolmodel asserts: the two validators accept
// the same strings, and a format outside this list is ignored by both.
const FORMAT_NAMES = [
  'date',
  'time',
  'date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
] as const;
const formats = {
  ...Object.fromEntries(FORMAT_NAMES.map((name) => [name, fullFormats[name]])),
  // ajv-formats' expression for `url` backtracks (quadratic in a long user-info part, ~1 s for
  // 60,000 characters); the same verdicts in linear time, shared with the default validator.
  url: isUrlFormat,
};

// Real-world MCP schemas carry unknown keywords and formats: accept them rather than refuse the
// tool. `verbose` puts the offending value on each error, for messages that say what was got.
const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  verbose: true,
  logger: false,
  validateSchema: false,
  meta: false,
  formats,
  // Without it ajv tests `data / divisor` with parseInt, which fails large numbers (5e20 is a
  // multiple of 0.5); the default validator does exact decimal arithmetic.
  multipleOfPrecision: 9,
  // ajv's default engine is the backtracking RegExp: `^(a+)+$` against 30 characters takes
  // seconds, on an event loop many sessions share. `pattern` and `patternProperties` run on a
  // linear-time engine instead, but for what it cannot express (see `linearPattern`).
  code: { regExp: Object.assign(linearRegExp, { code: 'linearPattern' }) },
};

function linearRegExp(source: string): { test: (text: string) => boolean } {
  return linearPattern(source);
}

/**
 * Creates a {@link SchemaValidator} on ajv: it compiles each schema to JavaScript on first use
 * (a few milliseconds) and then validates about a hundred times faster than the default
 * `createValidator` of `@toolplane/toolmodel`. Use it where code generation is allowed (Node,
 * Deno, Bun; not most edge runtimes) and the same schemas are validated many times.
 *
 * It follows the same contract as the default: `$schema` absent means 2020-12, draft-07 when
 * named, any other dialect refused (see `schemaDialect`); `$ref` resolves only inside the
 * schema and nothing is ever fetched; unknown keywords are ignored; the same `format`s are
 * asserted. Each schema object is compiled once, by its own ajv instance so that `$id`s of
 * different tools never collide, and cached by identity.
 *
 * @throws {ToolError} `invalid_argument` for an option it does not take; from `validate`:
 * `unsupported_schema` for another dialect;
 * `invalid_schema` for a `$ref` that does not resolve inside the schema, a schema ajv cannot
 * compile (e.g. an invalid `pattern`), or one that recurses without end.
 */
export function createAjvValidator(options: AjvValidatorOptions = {}): SchemaValidator {
  refuseUnknownOptions(options, KNOWN, 'createAjvValidator');
  const maxErrors = options.maxErrors ?? DEFAULT_MAX_ERRORS;
  // 0 or NaN reported every error, however many.
  checkCount(maxErrors, 'createAjvValidator: maxErrors');
  return createSchemaValidator((schema) => {
    const compiled = compile(schema);
    return (value) => {
      let valid: boolean;
      try {
        valid = compiled(value);
      } catch (error) {
        throw runError(error);
      }
      return valid
        ? VALID
        : { valid: false, errors: simplifyErrors(compiled.errors ?? [], maxErrors) };
    };
  });
}

function compile(schema: Record<string, unknown>): ValidateFunction {
  const ajv =
    schemaDialect(schema) === 'draft-07' ? new Ajv(AJV_OPTIONS) : new Ajv2020(AJV_OPTIONS);
  let compiled: ValidateFunction;
  try {
    compiled = ajv.compile(schema);
  } catch (error) {
    const missingRef = (error as { missingRef?: unknown } | null)?.missingRef;
    if (typeof missingRef === 'string') throw unresolvedRef(missingRef, error);
    throw runError(error);
  }
  if ('$async' in compiled) {
    throw new ToolError(
      'invalid_schema',
      '"$async": true schemas are not supported; remove "$async"',
    );
  }
  return compiled;
}

function runError(error: unknown): ToolError {
  if (ToolError.isInstance(error)) return error;
  const overflow = stackOverflow(error);
  if (overflow !== undefined) return overflow;
  const why = error instanceof Error ? error.message : String(error);
  return new ToolError('invalid_schema', `the schema cannot be used: ${why}`, { cause: error });
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

/**
 * Keeps the errors that say what is wrong: an `anyOf`/`oneOf` failure instead of its branches'
 * errors, the `then`/`else` errors instead of the `if` wrapper, and additional properties and
 * items located at the offending member rather than its parent.
 */
function simplifyErrors(raw: readonly ErrorObject[], maxErrors: number): SchemaValidationError[] {
  const alternatives = raw
    .filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
    .map((error) => `${error.schemaPath}/`);
  const errors: SchemaValidationError[] = [];
  for (const error of raw) {
    if (error.keyword === 'if') continue;
    if (alternatives.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    for (const each of toErrors(error)) {
      errors.push(each);
      if (errors.length === maxErrors) return errors;
    }
  }
  return errors;
}

function toErrors(error: ErrorObject): SchemaValidationError[] {
  const { limit } = error.params as { limit?: unknown };
  const items = error.data;
  // ajv reports `items: false` once, at the array; name each item that is not allowed instead.
  if (
    (error.keyword === 'items' || error.keyword === 'additionalItems') &&
    typeof limit === 'number' &&
    Array.isArray(items)
  ) {
    return items.slice(limit).map((_, offset) => ({
      path: `${error.instancePath}/${String(limit + offset)}`,
      keyword: error.keyword,
      message: `no item is allowed at index ${String(limit + offset)}`,
    }));
  }
  return [toError(error)];
}

function toError(error: ErrorObject): SchemaValidationError {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        path,
        keyword: 'required',
        message: `missing required property ${JSON.stringify(params.missingProperty)}`,
      };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      return {
        path: `${path}/${pointerToken(name)}`,
        keyword: error.keyword,
        message: `property ${JSON.stringify(name)} is not allowed`,
      };
    }
    case 'type':
      return {
        path,
        keyword: 'type',
        message: `must be ${String(params.type).replaceAll(',', ' or ')}, got ${jsonType(error.data)}`,
      };
    case 'enum':
      return {
        path,
        keyword: 'enum',
        message: `must be one of ${JSON.stringify(params.allowedValues)}`,
      };
    case 'false schema':
      // ajv's schemaPath is `#<pointer of the false subschema>/false schema`.
      return falseSchemaError(error.schemaPath.slice(1).replace(/\/false schema$/, ''), path);
    case 'anyOf':
      return {
        path,
        keyword: 'anyOf',
        message: 'does not match any of the allowed alternatives (anyOf)',
      };
  }
  return { path, keyword: error.keyword, message: error.message ?? `fails "${error.keyword}"` };
}
