import { ToolError } from './errors.js';

/** The parts of a canonical tool ID. The name never carries the version. */
export interface ToolIdParts {
  readonly namespace?: string;
  readonly name: string;
  readonly version?: string;
}

/** MCP tool-name rule: 1–128 characters of `A-Z a-z 0-9 _ - .`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
/** Namespace rule: 1–64 characters of `A-Z a-z 0-9 _ -` (no dot, no colon). */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Version rule: 1–64 characters of `A-Z a-z 0-9 _ - . +` (semver fits). */
export const VERSION_PATTERN = /^[A-Za-z0-9_.+-]{1,64}$/;

const NAME_CHAR = /[A-Za-z0-9_.-]/;
const NAMESPACE_CHAR = /[A-Za-z0-9_-]/;
const VERSION_CHAR = /[A-Za-z0-9_.+-]/;

// Each part's bit in ID_CHARS.
const NAME_BIT = 1;
const NAMESPACE_BIT = 2;
const VERSION_BIT = 4;

/**
 * Per ASCII code, the parts it may appear in (the patterns above as bits): registration checks
 * two or three parts a tool, and a loop over this table costs a fraction of a regular
 * expression's match. The patterns stay the rule; this table only answers faster.
 */
const ID_CHARS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  ID_CHARS[code] =
    (NAME_CHAR.test(char) ? NAME_BIT : 0) |
    (NAMESPACE_CHAR.test(char) ? NAMESPACE_BIT : 0) |
    (VERSION_CHAR.test(char) ? VERSION_BIT : 0);
}

const ID_RULES = {
  name: [NAME_BIT, NAME_CHAR, 128, 'A-Z a-z 0-9 _ - .'],
  namespace: [NAMESPACE_BIT, NAMESPACE_CHAR, 64, 'A-Z a-z 0-9 _ -'],
  version: [VERSION_BIT, VERSION_CHAR, 64, 'A-Z a-z 0-9 _ - . +'],
} as const;

/** Whether `value` matches its part's pattern: 1 to `max` characters, each allowed by `bit`. */
function fitsRule(value: string, bit: number, max: number): boolean {
  const length = value.length;
  if (length === 0 || length > max) return false;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 128 || ((ID_CHARS[code] as number) & bit) === 0) return false;
  }
  return true;
}

function describeBadChars(value: string, allowed: RegExp): string {
  // Code points, not UTF-16 units, so a stray emoji is reported whole.
  const bad = [...new Set(Array.from(value).filter((ch) => !allowed.test(ch)))];
  return bad.map((ch) => JSON.stringify(ch)).join(', ');
}

/**
 * Why `value` is not a valid part of a tool ID, or `undefined` when it is.
 * Shared by ID parsing and tool validation so both say the same thing.
 *
 * @internal
 */
export function checkIdPart(
  value: unknown,
  part: 'name' | 'namespace' | 'version',
): string | undefined {
  // One rule per part, looked up rather than built: every registration checks two or three.
  const rule = ID_RULES[part];
  if (typeof value !== 'string') return `${part} must be a string, got ${typeof value}`;
  const [bit, char, max, allowedText] = rule;
  if (fitsRule(value, bit, max)) return undefined;
  if (value.length === 0) return `${part} is empty`;
  if (value.length > max) return `${part} is ${value.length} characters long (at most ${max})`;
  return `${part} ${JSON.stringify(value)} contains ${describeBadChars(value, char)} (allowed: ${allowedText})`;
}

/**
 * Parses a canonical tool ID: `name`, `namespace:name` or `namespace:name:version`.
 *
 * @throws {ToolError} `invalid_tool_id` for a non-string, empty parts, too many colons or
 * characters outside the name, namespace and version rules.
 */
export function parseToolId(id: unknown): ToolIdParts {
  if (typeof id !== 'string') {
    throw new ToolError('invalid_tool_id', `tool ID must be a string, got ${typeof id}`);
  }
  const parts = id.split(':');
  if (parts.length > 3) {
    throw new ToolError(
      'invalid_tool_id',
      `tool ID ${JSON.stringify(id)} has ${parts.length - 1} colons; expected name, namespace:name or namespace:name:version`,
    );
  }
  const [first, second, third] = parts as [string, string?, string?];
  const [namespace, name, version] =
    second === undefined ? [undefined, first, undefined] : [first, second, third];
  const problem =
    (namespace === undefined ? undefined : checkIdPart(namespace, 'namespace')) ??
    checkIdPart(name, 'name') ??
    (version === undefined ? undefined : checkIdPart(version, 'version'));
  if (problem !== undefined) {
    throw new ToolError('invalid_tool_id', `invalid tool ID ${JSON.stringify(id)}: ${problem}`);
  }
  if (namespace === undefined) return { name };
  return version === undefined ? { namespace, name } : { namespace, name, version };
}

/**
 * Formats ID parts as a canonical tool ID. A version is only part of the ID when there is a
 * namespace (`name:version` would read as `namespace:name`).
 *
 * @throws {ToolError} `invalid_tool_id` when a part breaks its rule.
 */
export function formatToolId(parts: ToolIdParts): string {
  const problem =
    checkIdPart(parts.name, 'name') ??
    (parts.namespace === undefined ? undefined : checkIdPart(parts.namespace, 'namespace')) ??
    (parts.namespace === undefined || parts.version === undefined
      ? undefined
      : checkIdPart(parts.version, 'version'));
  if (problem !== undefined) throw new ToolError('invalid_tool_id', `invalid tool ID: ${problem}`);
  if (parts.namespace === undefined) return parts.name;
  return parts.version === undefined
    ? `${parts.namespace}:${parts.name}`
    : `${parts.namespace}:${parts.name}:${parts.version}`;
}

/**
 * The canonical ID of a tool: `name`, `namespace:name`, or `namespace:name:version`.
 *
 * @throws {ToolError} `invalid_tool_id` when the name, namespace or version breaks its rule, or
 * `tool` is not an object.
 */
export function toolId(tool: ToolIdParts): string {
  const given: unknown = tool;
  if (typeof given !== 'object' || given === null) {
    throw new ToolError(
      'invalid_tool_id',
      `a tool ID is made of a tool object's parts, got ${given === null ? 'null' : typeof given}`,
    );
  }
  return formatToolId({ namespace: tool.namespace, name: tool.name, version: tool.version });
}
