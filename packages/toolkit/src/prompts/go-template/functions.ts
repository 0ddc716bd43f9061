import { formatValue, MISSING, sprint, sprintf, sprintln, typeName, type Value } from './format.js';

// The functions a prompt template can call: Go's text/template builtins (less `call`, which needs
// function values data never holds) and the seed's table (`json`, `join`, `default`, `upper`,
// `lower`, `trim`). `and` and `or` are not here: they short-circuit, so ./exec.ts evaluates them.

/** A function's failure; the caller adds where it happened. */
export class CallError extends Error {}

type Fn = (args: readonly Value[]) => Value;

const functions: Record<string, Fn> = {
  not: (args) => !truth(one('not', args)),
  len: (args) => {
    const value = one('len', args);
    if (typeof value === 'string') return BigInt(Buffer.byteLength(value, 'utf8'));
    if (Array.isArray(value)) return BigInt(value.length);
    if (isMap(value)) return BigInt(Object.keys(value).length);
    throw new CallError(`len of type ${typeName(value)}`);
  },
  index: (args) => {
    if (args.length === 0)
      throw new CallError('wrong number of args for index: want at least 1 got 0');
    let item = args[0] as Value;
    for (const key of args.slice(1)) item = indexOne(item, key);
    return item;
  },
  slice: (args) => {
    const [item, ...bounds] = args;
    if (item === undefined || bounds.length > 2)
      throw new CallError('wrong number of args for slice');
    const length =
      typeof item === 'string'
        ? Buffer.byteLength(item, 'utf8')
        : Array.isArray(item)
          ? item.length
          : -1;
    if (length < 0) throw new CallError(`can't slice item of type ${typeName(item)}`);
    const [from = 0, to = length] = bounds.map((bound) => integer(bound, 'slice index'));
    if (from < 0 || to < from || to > length)
      throw new CallError(`index out of range: ${from}:${to}`);
    return typeof item === 'string'
      ? Buffer.from(item, 'utf8').subarray(from, to).toString('utf8')
      : (item as readonly Value[]).slice(from, to);
  },
  print: (args) => sprint(args),
  println: (args) => sprintln(args),
  printf: (args) => {
    const [format, ...rest] = args;
    if (typeof format !== 'string') throw new CallError('printf needs a format string first');
    return sprintf(format, rest);
  },
  html: (args) => sprint(args).replace(/[<>&'"\0]/g, (char) => HTML[char] ?? char),
  js: (args) =>
    sprint(args).replace(JS_SPECIAL, (char) =>
      char === '\\' || char === "'" || char === '"'
        ? `\\${char}`
        : `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
    ),
  urlquery: (args) =>
    encodeURIComponent(sprint(args))
      .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+'),
  eq: (args) => {
    if (args.length < 2) throw new CallError('missing argument for comparison');
    const [first, ...others] = args as [Value, ...Value[]];
    return others.some((other) => equal(first, other));
  },
  ne: (args) => {
    const [a, b] = two('ne', args);
    return !equal(a, b);
  },
  lt: (args) => compare('lt', args) < 0,
  le: (args) => compare('le', args) <= 0,
  gt: (args) => compare('gt', args) > 0,
  ge: (args) => compare('ge', args) >= 0,
  // The seed's table.
  json: (args) => JSON.stringify(toJson(one('json', args))),
  join: (args) => {
    const [a, b] = two('join', args);
    // `join .items ", "` as the seed writes it, and `.items | join ", "` as a pipeline passes it.
    const [list, separator]: [Value, Value] = Array.isArray(a) ? [a, b] : [b, a];
    if (!Array.isArray(list)) throw new CallError(`join needs a list, got ${typeName(list)}`);
    return (list as readonly Value[]).map(formatValue).join(text(separator));
  },
  default: (args) => {
    const [fallback, value] = two('default', args);
    return truth(value) ? value : fallback;
  },
  upper: (args) => text(one('upper', args)).toUpperCase(),
  lower: (args) => text(one('lower', args)).toLowerCase(),
  trim: (args) => text(one('trim', args)).trim(),
};

// Go's JSEscapeString: quotes and backslash escaped, HTML's specials and control characters as \uXXXX.
// eslint-disable-next-line no-control-regex -- control characters are exactly what it must find
const JS_SPECIAL = /[\\'"<>&=\u0000-\u001f]/g;

const HTML: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  "'": '&#39;',
  '"': '&#34;',
  '\0': '\uFFFD',
};

/** Every name a template may call, `and` and `or` included. */
export const FUNCTION_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(functions),
  'and',
  'or',
]);

/** Calls the function `name` (never `and`/`or`). */
export function callFunction(name: string, args: readonly Value[]): Value {
  const fn = functions[name];
  if (fn === undefined) throw new CallError(`function "${name}" not defined`);
  return fn(args.map((arg) => (arg === MISSING ? null : arg)));
}

/** Go's truth: false, 0, nil, and empty strings, lists and maps are false. */
export function truth(value: Value): boolean {
  if (value === MISSING || value === null) return false;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      return value !== 0;
    case 'bigint':
      return value !== 0n;
    case 'string':
      return value.length > 0;
    default:
      return Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0;
  }
}

/** Whether `value` is a JSON object (Go's map). */
export function isMap(value: Value): value is { readonly [key: string]: Value } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function one(name: string, args: readonly Value[]): Value {
  if (args.length !== 1)
    throw new CallError(`wrong number of args for ${name}: want 1 got ${args.length}`);
  return args[0] as Value;
}

function two(name: string, args: readonly Value[]): [Value, Value] {
  if (args.length !== 2)
    throw new CallError(`wrong number of args for ${name}: want 2 got ${args.length}`);
  return [args[0] as Value, args[1] as Value];
}

function text(value: Value): string {
  return value === null || value === MISSING ? '' : formatValue(value);
}

function integer(value: Value, what: string): number {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new CallError(`cannot index slice/array with type ${typeName(value)} (${what})`);
}

function indexOne(item: Value, key: Value): Value {
  if (Array.isArray(item)) {
    const at = integer(key, 'index');
    if (at < 0 || at >= item.length)
      throw new CallError(`error calling index: index out of range: ${at}`);
    return item[at] as Value;
  }
  if (isMap(item)) {
    if (typeof key !== 'string')
      throw new CallError(`value has type ${typeName(key)}; should be string`);
    return Object.hasOwn(item, key) ? (item[key] as Value) : null;
  }
  if (typeof item === 'string') {
    const bytes = Buffer.from(item, 'utf8');
    const at = integer(key, 'index');
    if (at < 0 || at >= bytes.length)
      throw new CallError(`error calling index: index out of range: ${at}`);
    return BigInt(bytes[at] ?? 0);
  }
  if (item === null) throw new CallError('index of untyped nil');
  throw new CallError(`can't index item of type ${typeName(item)}`);
}

// Go compares only basic values and refuses to compare across kinds; its integers and floats are
// different kinds there, but JSON has only floats, so numbers compare by value here.
function basic(value: Value, name: string): string | number | boolean | null {
  if (typeof value === 'bigint') return Number(value);
  if (value === MISSING) return null;
  if (typeof value === 'object' && value !== null)
    throw new CallError(`error calling ${name}: invalid type for comparison`);
  return value;
}

function equal(a: Value, b: Value): boolean {
  const left = basic(a, 'eq');
  const right = basic(b, 'eq');
  if (left === null || right === null) return left === right;
  if (typeof left !== typeof right)
    throw new CallError('error calling eq: incompatible types for comparison');
  return left === right;
}

function compare(name: string, args: readonly Value[]): number {
  const [a, b] = two(name, args);
  const left = basic(a, name);
  const right = basic(b, name);
  if (typeof left === 'boolean' || left === null || typeof right === 'boolean' || right === null) {
    throw new CallError(`error calling ${name}: invalid type for comparison`);
  }
  if (typeof left !== typeof right)
    throw new CallError(`error calling ${name}: incompatible types for comparison`);
  return left < right ? -1 : left > right ? 1 : 0;
}

function toJson(value: Value): unknown {
  if (value === MISSING) return null;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJson);
  if (isMap(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  return value;
}
