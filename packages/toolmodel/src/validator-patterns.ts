import { isPlainObject } from './guards.js';
import { linearPattern, type LinearPattern } from './linear-pattern.js';

/** The patterns of one schema that run on the linear-time engine, by source. */
export type LinearPatterns = ReadonlyMap<string, LinearPattern>;

/**
 * The `pattern`s and `patternProperties` keys of every subschema `@cfworker/json-schema` can
 * evaluate (its `lookup` holds each one it reaches, through `$ref` too), compiled for the
 * linear-time engine. A pattern RE2 cannot express, or one that is not a regular expression,
 * is left out: the library tests it with `RegExp` as before, and reports an invalid one as
 * before.
 */
export function linearPatterns(nodes: Iterable<unknown>): LinearPatterns {
  const sources = new Set<string>();
  for (const node of nodes) {
    if (!isPlainObject(node)) continue;
    if (typeof node.pattern === 'string') sources.add(node.pattern);
    if (isPlainObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) sources.add(key);
    }
  }
  const patterns = new Map<string, LinearPattern>();
  for (const source of sources) {
    let pattern: LinearPattern;
    try {
      pattern = linearPattern(source);
    } catch {
      continue;
    }
    if (pattern.linear) patterns.set(source, pattern);
  }
  return patterns;
}

const scope = globalThis as unknown as { RegExp: RegExpConstructor };
let active: LinearPatterns | undefined;
let native: RegExpConstructor = RegExp;

// What `RegExp` names while @cfworker/json-schema validates: `new RegExp(source, 'u')` of one of
// the schema's linear patterns answers that pattern, whose `test` is all the library calls;
// everything else is the real `RegExp`.
function LinearRegExp(this: unknown, source?: unknown, flags?: unknown): unknown {
  // Typed as always set, but undefined when called without `new`.
  const target = new.target as unknown as (new (...args: unknown[]) => unknown) | undefined;
  if (target === undefined) return native(source as string, flags as string);
  if (flags === 'u' && typeof source === 'string') {
    const pattern = active?.get(source);
    if (pattern !== undefined) return pattern;
  }
  const own = target === (LinearRegExp as unknown);
  return Reflect.construct(native, [source, flags], own ? native : target);
}
LinearRegExp.prototype = RegExp.prototype;

/**
 * Runs `validate` (a synchronous call of @cfworker/json-schema) with the schema's patterns
 * tested by the linear-time engine. The library builds `new RegExp(pattern, 'u')` for every
 * `pattern` and `patternProperties` key it evaluates and has no hook for another engine, and no
 * rewrite of the schema can stand in for `patternProperties` (no other keyword applies a
 * subschema to the properties whose names pass a test). So for the length of the call, and only
 * then, the global `RegExp` is a stand-in that answers those sources with their linear matcher
 * and anything else with a real `RegExp`. It is restored before the call returns or throws:
 * only the library's code runs meanwhile (and the getters of a value that has any, which get a
 * real `RegExp` for every other source). Where the global cannot be replaced (a frozen realm),
 * patterns run on `RegExp`, as before.
 */
export function withLinearPatterns<T>(patterns: LinearPatterns, validate: () => T): T {
  if (patterns.size === 0) return validate();
  const outer = { active, RegExp: scope.RegExp };
  if (outer.RegExp !== (LinearRegExp as unknown)) native = outer.RegExp;
  try {
    scope.RegExp = LinearRegExp as unknown as RegExpConstructor;
  } catch {
    return validate();
  }
  active = patterns;
  try {
    return validate();
  } finally {
    active = outer.active;
    scope.RegExp = outer.RegExp;
  }
}
