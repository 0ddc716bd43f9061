/** The tool-schema dialects {@link convertSchema} writes. */
export type SchemaTarget = 'openai-strict' | 'openai' | 'anthropic' | 'gemini';

/**
 * What one provider accepts in a tool's input schema, as data: the one walker in
 * `schema-conversion` and the one checker in `schema-check` both read it, so a provider's rules
 * live in one place.
 */
export interface ProviderSchemaRules {
  readonly target: SchemaTarget;
  /** Keywords kept as written; any other keyword moves into the description. */
  readonly keywords: ReadonlySet<string>;
  /** `lower`: JSON Schema's `"string"`; `upper`: Gemini's `"STRING"`. */
  readonly typeCase: 'lower' | 'upper';
  /**
   * `array`: `type: ["string", "null"]` is fine; `nullable`: one type per schema, null said with
   * `nullable: true` and several types as `anyOf` (Gemini's OpenAPI 3.0 subset).
   */
  readonly typeUnion: 'array' | 'nullable';
  /** How `oneOf` is written: kept, or read as `anyOf` (which accepts a superset). */
  readonly oneOf: 'oneOf' | 'anyOf';
  /** `const` kept, or written as a one-value `enum`. */
  readonly constAs: 'const' | 'enum';
  /** Which `enum`s are kept: any JSON values, or strings only. */
  readonly enumValues: 'any' | 'strings';
  /** Count keywords (`minItems`, `maxLength`, ...) as JSON numbers, or as strings (int64). */
  readonly counts: 'number' | 'string';
  /**
   * Objects without declared properties below the root: kept, or (Gemini, which refuses an
   * OBJECT without properties) written as a string holding the object's JSON, parsed back by
   * `restore`.
   */
  readonly emptyObjects: 'keep' | 'json-text';
  /**
   * Every schema typed (Gemini refuses one with neither `type` nor `anyOf`, `type: must be
   * specified`, and an ARRAY without `items`, failing the whole request): a value of any type is
   * written as any scalar, a tuple's items as any of its item schemas. Absent: as given.
   */
  readonly typed?: boolean;
  /** String formats kept; others move into the description. `undefined`: every format. */
  readonly formats?: ReadonlySet<string>;
  /**
   * Strict mode: every object closed (`additionalProperties: false`) with every property
   * required, optional ones made nullable. A schema that cannot be written so falls back to
   * {@link ProviderSchemaRules.fallback} with a stated reason.
   */
  readonly strict: boolean;
  readonly fallback?: SchemaTarget;
  /** Most levels of nested objects and arrays, and most properties in all, strict mode allows. */
  readonly maxDepth?: number;
  readonly maxProperties?: number;
  /** Most enum values in all, strict mode allows. */
  readonly maxEnumValues?: number;
  /** Past this many values, the most characters one string enum's values may take in all. */
  readonly longEnum?: { readonly values: number; readonly chars: number };
}

const COUNTS = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'];

/** Keywords every provider keeps. */
const CORE = ['type', 'properties', 'required', 'items', 'description', 'enum', 'anyOf'];

/** JSON Schema 2020-12's validation and annotation keywords that OpenAI and Anthropic accept. */
const FULL = [
  ...CORE,
  ...COUNTS,
  'title',
  'default',
  'examples',
  'const',
  'oneOf',
  'allOf',
  'not',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'uniqueItems',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'prefixItems',
  'contains',
  'minContains',
  'maxContains',
  'dependentRequired',
  'dependentSchemas',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentMediaType',
  'contentEncoding',
];

/** The rules of every target, by name. */
export const SCHEMA_RULES: Readonly<Record<SchemaTarget, ProviderSchemaRules>> = {
  // OpenAI Structured Outputs' supported subset for `strict: true` function tools.
  'openai-strict': {
    target: 'openai-strict',
    keywords: new Set([
      ...CORE,
      'additionalProperties',
      'pattern',
      'format',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'multipleOf',
      'minItems',
      'maxItems',
    ]),
    typeCase: 'lower',
    typeUnion: 'array',
    oneOf: 'anyOf',
    constAs: 'enum',
    enumValues: 'any',
    counts: 'number',
    emptyObjects: 'keep',
    formats: new Set([
      'date-time',
      'time',
      'date',
      'duration',
      'email',
      'hostname',
      'ipv4',
      'ipv6',
      'uuid',
    ]),
    strict: true,
    fallback: 'openai',
    maxDepth: 10,
    maxProperties: 5000,
    maxEnumValues: 1000,
    longEnum: { values: 250, chars: 15_000 },
  },
  // `strict: false`: OpenAI reads the schema as guidance and accepts JSON Schema at large.
  openai: {
    target: 'openai',
    keywords: new Set(FULL),
    typeCase: 'lower',
    typeUnion: 'array',
    oneOf: 'oneOf',
    constAs: 'const',
    enumValues: 'any',
    counts: 'number',
    emptyObjects: 'keep',
    strict: false,
  },
  // The Messages API takes JSON Schema with an object at the root.
  anthropic: {
    target: 'anthropic',
    keywords: new Set(FULL),
    typeCase: 'lower',
    typeUnion: 'array',
    oneOf: 'oneOf',
    constAs: 'const',
    enumValues: 'any',
    counts: 'number',
    emptyObjects: 'keep',
    strict: false,
  },
  // Gemini's `Schema`: a subset of OpenAPI 3.0's schema object.
  gemini: {
    target: 'gemini',
    keywords: new Set([
      ...CORE,
      ...COUNTS,
      'title',
      'format',
      'pattern',
      'minimum',
      'maximum',
      'nullable',
      'default',
      'example',
      'propertyOrdering',
    ]),
    typeCase: 'upper',
    typeUnion: 'nullable',
    oneOf: 'anyOf',
    constAs: 'enum',
    enumValues: 'strings',
    counts: 'string',
    emptyObjects: 'json-text',
    typed: true,
    strict: false,
  },
};

/**
 * The keywords no provider takes at a tool schema's root (OpenAI: `anyOf`, `oneOf`, `allOf`,
 * `enum`, `not`; the Messages API: the combinators): one of them there fails the whole request.
 */
export const ROOT_FORBIDDEN: readonly string[] = ['anyOf', 'oneOf', 'allOf', 'not', 'enum', 'if'];

/** The count keywords, whose values some providers take as strings. */
export const COUNT_KEYWORDS: ReadonlySet<string> = new Set(COUNTS);

/** The JSON Schema types. */
export const JSON_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
]);
