import {
  inexactInteger,
  inexactIntegerMessage,
  pointerToken,
  ToolError,
} from '@toolplane/toolmodel';

/** Options of {@link parseArgs}. */
export interface ParseArgsOptions {
  /** `--args`: a JSON object, merged under the `key=value` pairs. */
  readonly json?: string;
  /** The `key=value` words. */
  readonly pairs?: readonly string[];
  /** The tool's (or prompt's) input schema: says how to read each value. */
  readonly schema?: unknown;
}

/**
 * Builds a call's arguments from `--args JSON` and `key=value` words. A value is read by the
 * type its property declares: numbers and booleans are parsed, objects and arrays are JSON,
 * strings are taken as written; for an undeclared property, JSON if it parses, else the text.
 * A dotted key (`user.name=ada`) sets a nested property.
 *
 * @throws {ToolError} `invalid_argument` naming the word or JSON that is malformed;
 *   `validation` for a value that is not the JSON its declared object or array type needs.
 */
export function parseArgs(options: ParseArgsOptions): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (options.json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(options.json);
    } catch (error) {
      throw new ToolError(
        'invalid_argument',
        `--args: not valid JSON: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ToolError(
        'invalid_argument',
        '--args must be a JSON object, e.g. \'{"city":"Paris"}\'',
      );
    }
    refuseInexact(options.json, 'in --args');
    args = parsed as Record<string, unknown>;
  }
  for (const pair of options.pairs ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw new ToolError(
        'invalid_argument',
        `${JSON.stringify(pair)} is not key=value; write e.g. city=Paris (or pass --args JSON)`,
      );
    }
    const path = pair.slice(0, at).split('.');
    if (
      path.some(
        (part) =>
          part === '' || part === '__proto__' || part === 'constructor' || part === 'prototype',
      )
    ) {
      throw new ToolError(
        'invalid_argument',
        `${JSON.stringify(pair)}: the key is not a usable property path`,
      );
    }
    let target = args;
    let schema = options.schema;
    for (const part of path.slice(0, -1)) {
      const next = target[part];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) target[part] = {};
      target = target[part] as Record<string, unknown>;
      schema = propertySchema(schema, part);
    }
    const key = path.at(-1) ?? '';
    target[key] = readValue(pair.slice(at + 1), propertySchema(schema, key), pair, path);
  }
  return args;
}

function propertySchema(schema: unknown, key: string): unknown {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  return properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : undefined;
}

function declaredTypes(schema: unknown): Set<string> {
  if (typeof schema !== 'object' || schema === null) return new Set();
  const s = schema as {
    type?: unknown;
    enum?: unknown;
    const?: unknown;
    anyOf?: unknown;
    oneOf?: unknown;
  };
  const types = new Set<string>();
  if (typeof s.type === 'string') types.add(s.type);
  if (Array.isArray(s.type)) for (const t of s.type) if (typeof t === 'string') types.add(t);
  for (const values of [s.enum, s.const === undefined ? undefined : [s.const]]) {
    if (Array.isArray(values)) for (const v of values) types.add(v === null ? 'null' : typeof v);
  }
  for (const list of [s.anyOf, s.oneOf]) {
    if (Array.isArray(list))
      for (const sub of list) for (const t of declaredTypes(sub)) types.add(t);
  }
  return types;
}

/** `raw` without its one trailing newline when only an enum value, boolean or null is wanted. */
function lineOf(raw: string, schema: unknown, types: ReadonlySet<string>): string {
  const line = raw.replace(/\r?\n$/, '');
  if (line === raw) return raw;
  const values = (schema as { enum?: unknown } | null)?.enum;
  if (Array.isArray(values)) return values.includes(line) ? line : raw;
  const onlyWords = [...types].every((type) => type === 'boolean' || type === 'null');
  return types.size > 0 && onlyWords ? line : raw;
}

function readValue(raw: string, schema: unknown, pair: string, path: readonly string[]): unknown {
  const types = declaredTypes(schema);
  // A value read from stdin or a file (`echo red | … color=@-`) ends with a newline that no
  // enum value, boolean or null has: it is dropped for those, and kept for free text.
  const text = lineOf(raw, schema, types);
  if (types.has('string') && !types.has('object') && !types.has('array')) return text;
  if (types.size === 0 || types.has('object') || types.has('array')) {
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      if (types.size === 0) return text;
      // The tool's schema refuses the value, as it refuses `count=abc` for an integer: a
      // validation error naming the argument, not a malformed command line.
      const message = `expected JSON for an ${[...types].join(' or ')}`;
      throw new ToolError('validation', `invalid arguments: ${pair}: ${message}`, {
        cause: error,
        errors: [
          { path: path.map((part) => `/${pointerToken(part)}`).join(''), keyword: 'type', message },
        ],
      });
    }
    refuseInexact(text, `in ${pair}`);
    return value;
  }
  // A number too large for a double (1e400) is read as Infinity, which the tool's validation
  // refuses as not a finite number: said of the number typed, not of a string.
  if (
    (types.has('number') || types.has('integer')) &&
    text.trim() !== '' &&
    !Number.isNaN(Number(text))
  ) {
    refuseInexact(text, `in ${pair}`);
    return Number(text);
  }
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.has('null') && text === 'null') return null;
  // Let the tool's validation say what is wrong with it, naming the argument.
  return text;
}

/**
 * @throws {ToolError} `invalid_argument` when `text` holds an integer JSON reads as another
 * number (past 2^53 - 1): the tool would get a different value than the one typed.
 */
function refuseInexact(text: string, where: string): void {
  const token = inexactInteger(text);
  if (token === undefined) return;
  throw new ToolError(
    'invalid_argument',
    inexactIntegerMessage(token, {
      where,
      outcome: 'the tool was not called; pass such a value as a string where the tool takes one',
    }),
  );
}
