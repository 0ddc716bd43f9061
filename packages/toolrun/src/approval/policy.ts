import { createRequire } from 'node:module';
import { ToolError, type Tool } from '@toolplane/toolmodel';

// picomatch (~35 kB) loads with the first `tools` / `except` pattern compiled: a policy of
// annotations alone, and every process with no policy, never needs it.
let picomatch: typeof import('picomatch') | undefined;
const loadPicomatch = (): typeof import('picomatch') =>
  (picomatch ??= createRequire(import.meta.url)('picomatch') as typeof import('picomatch'));

/**
 * Why a call needs approval: `destructive` (the tool says `destructiveHint: true`),
 * `unannotated` (it says neither `readOnlyHint` nor `destructiveHint`), or `tools:<pattern>`
 * (its ID matched that pattern of the `tools` list).
 */
export type ApprovalPolicy = 'destructive' | 'unannotated' | `tools:${string}`;

/** What decides which tools need approval; see {@link ApprovalOptions}. */
export interface ApprovalRules {
  readonly destructive?: boolean;
  readonly unannotated?: boolean;
  readonly tools?: readonly string[];
  readonly except?: readonly string[];
}

// Bounds on a pattern, so that a hostile config cannot build a matcher that backtracks for
// seconds on a long tool ID: short, the characters of IDs plus a few glob operators, few
// wildcards, no nested braces, no ranges.
const MAX_PATTERN_LENGTH = 200;
const MAX_WILDCARDS = 6;
const MAX_ALTERNATIVES = 32;
const PATTERN_CHARS = /^[A-Za-z0-9_.\-*?[\]{},:]+$/;

function badPattern(where: string, pattern: unknown, why: string): ToolError {
  const shown = typeof pattern === 'string' ? JSON.stringify(pattern.slice(0, 80)) : typeof pattern;
  return new ToolError(
    'invalid_argument',
    `approval ${where} pattern ${shown} ${why}; write it as namespace:tool with * and ? wildcards, e.g. "github:delete_*" or "fs:*"`,
  );
}

/**
 * Checks one `tools` / `except` pattern and compiles it with picomatch.
 *
 * @throws {ToolError} `invalid_argument` for a pattern that is not a bounded `namespace:tool`
 * glob.
 */
export function compilePattern(where: string, pattern: unknown): (id: string) => boolean {
  if (typeof pattern !== 'string' || pattern.length === 0) {
    throw badPattern(where, pattern, 'is not a non-empty string');
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw badPattern(where, pattern, `is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  if (!PATTERN_CHARS.test(pattern)) {
    throw badPattern(
      where,
      pattern,
      'has characters no tool ID has (allowed: A-Z a-z 0-9 _ - . : and * ? [ ] { } ,)',
    );
  }
  const colons = pattern.split(':').length - 1;
  if (colons !== 1)
    throw badPattern(where, pattern, 'needs exactly one ":" between namespace and tool');
  if (pattern.includes('..'))
    throw badPattern(where, pattern, 'has a range or ".." (not supported)');
  const wildcards = (pattern.match(/\*+|\?/g) ?? []).length;
  if (wildcards > MAX_WILDCARDS) {
    throw badPattern(where, pattern, `has ${wildcards} wildcards (at most ${MAX_WILDCARDS})`);
  }
  let depth = 0;
  for (const char of pattern) {
    if (char === '{') depth++;
    if (char === '}') depth--;
    if (depth > 1) throw badPattern(where, pattern, 'nests braces');
    if (depth < 0) throw badPattern(where, pattern, 'closes a brace it did not open');
  }
  if (depth !== 0) throw badPattern(where, pattern, 'leaves a brace open');
  if (pattern.split(',').length > MAX_ALTERNATIVES) {
    throw badPattern(where, pattern, `has more than ${MAX_ALTERNATIVES} alternatives`);
  }
  try {
    // strictBrackets: an unbalanced bracket is an error, not a literal; dot: names may start
    // with "."; no brace ranges are expanded (picomatch leaves them to braces, which we don't use).
    return loadPicomatch()(pattern, {
      dot: true,
      strictBrackets: true,
      nonegate: true,
      noextglob: true,
    });
  } catch (error) {
    throw new ToolError(
      'invalid_argument',
      `approval ${where} pattern ${JSON.stringify(pattern)} does not compile: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The ID patterns match against: `namespace:name`, without a version. */
export function matchId(tool: Tool): string {
  return tool.namespace === undefined ? tool.name : `${tool.namespace}:${tool.name}`;
}

/**
 * Builds the per-tool decision: the {@link ApprovalPolicy} that asks for approval of `tool`, or
 * `undefined` when its calls run without asking. `except` wins over every rule.
 *
 * @throws {ToolError} `invalid_argument` for a bad pattern or a list that is not an array.
 */
export function compileRules(rules: ApprovalRules): (tool: Tool) => ApprovalPolicy | undefined {
  const list = (where: 'tools' | 'except', value: unknown) => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      throw new ToolError('invalid_argument', `approval ${where} must be a list of patterns`);
    }
    return value.map((pattern: unknown) => {
      const matches = compilePattern(where, pattern);
      return { pattern: pattern as string, matches };
    });
  };
  const tools = list('tools', rules.tools);
  const except = list('except', rules.except);
  const destructive = rules.destructive ?? true;
  const unannotated = rules.unannotated ?? false;
  return (tool) => {
    const id = matchId(tool);
    if (except.some((rule) => rule.matches(id))) return undefined;
    const named = tools.find((rule) => rule.matches(id));
    if (named !== undefined) return `tools:${named.pattern}`;
    const hints = tool.annotations;
    if (destructive && hints?.destructiveHint === true && hints.readOnlyHint !== true) {
      return 'destructive';
    }
    if (unannotated && hints?.readOnlyHint === undefined && hints?.destructiveHint === undefined) {
      return 'unannotated';
    }
    return undefined;
  };
}
