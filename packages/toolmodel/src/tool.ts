import { ToolSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';
import { ToolError } from './errors.js';
import { checkIdPart } from './ids.js';

// The SDK v2 client and server packages define their `Tool` type as this same inference; only
// the schema package is a dependency, so installing toolmodel pulls no client or server code.
type McpTool = z.infer<typeof ToolSchema>;

/** The MCP protocol revision this model follows. */
export const MCP_VERSION = '2025-11-25';

/**
 * A tool: the MCP `Tool` of the official SDK v2 (name, title, description, inputSchema, outputSchema,
 * annotations, icons, execution, `_meta`) plus toolplane's own optional `namespace`, `version`
 * and `tags`. See {@link toolId} for its canonical ID and {@link toMcpJson} for the wire form.
 */
export type Tool = McpTool & {
  /** Groups tools by source (`builtin`, `github`); part of the canonical ID. */
  namespace?: string;
  /** Optional version; part of the canonical ID when the tool has a namespace. */
  version?: string;
  /** Normalised search tags (see {@link normalizeTags}). */
  tags?: string[];
};

/** A JSON Schema document: an object, or a boolean schema. */
export type JsonSchema = Record<string, unknown> | boolean;

/** At most this many tags are kept by {@link normalizeTags}. */
export const MAX_TAGS = 32;
/** Tags are cut to this many characters by {@link normalizeTags}. */
export const MAX_TAG_LENGTH = 64;

/**
 * Normalises tags: trimmed, lower-cased, inner whitespace as `-`, empties dropped, duplicates
 * removed keeping first-seen order, each cut to {@link MAX_TAG_LENGTH} characters and at most
 * {@link MAX_TAGS} kept.
 *
 * @throws {ToolError} `invalid_tool` when `tags` is not an array of strings.
 */
export function normalizeTags(tags: readonly string[] | undefined): string[] {
  if (tags === undefined) return [];
  if (!Array.isArray(tags)) throw new ToolError('invalid_tool', 'tags must be an array of strings');
  const seen = new Set<string>();
  for (const tag of tags) {
    if (typeof tag !== 'string') {
      throw new ToolError('invalid_tool', `tags must be strings, got ${typeof tag}`);
    }
    const normal = tag.trim().toLowerCase().replace(/\s+/g, '-').slice(0, MAX_TAG_LENGTH);
    if (normal.length > 0) seen.add(normal);
    if (seen.size === MAX_TAGS) break;
  }
  return [...seen];
}

/**
 * Whether {@link normalizeTags} would give back these same tags, in the same order: each one
 * already trimmed, lower-case, free of whitespace, non-empty and at most {@link MAX_TAG_LENGTH}
 * characters, none repeated, at most {@link MAX_TAGS} of them. A registration can then copy the
 * tags as they are instead of building a normalised array (and a set) to throw away. Tags
 * holding any character outside ASCII are reported as not normal, so the caller normalises
 * them (lower-casing beyond A–Z is `toLowerCase`'s to decide).
 */
export function areNormalTags(tags: readonly unknown[]): tags is readonly string[] {
  if (tags.length > MAX_TAGS) return false;
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i];
    if (typeof tag !== 'string' || tag.length === 0 || tag.length > MAX_TAG_LENGTH) return false;
    for (let j = 0; j < tag.length; j++) {
      const code = tag.charCodeAt(j);
      // Whitespace (tab to carriage return, space), capitals, anything outside ASCII.
      if (code <= 32 || (code >= 65 && code <= 90) || code >= 127) return false;
    }
    for (let k = 0; k < i; k++) if (tags[k] === tag) return false;
  }
  return true;
}

function checkObjectSchema(
  schema: unknown,
  field: 'inputSchema' | 'outputSchema',
): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return `${field} must be a JSON Schema object with type "object", got ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema}`;
  }
  const type = (schema as Record<string, unknown>).type;
  if (type !== 'object')
    return `${field}.type must be "object", got ${type === undefined ? 'nothing' : JSON.stringify(type)}`;
  return undefined;
}

/**
 * Checks that a value is a valid {@link Tool}: name, namespace and version follow the ID rules,
 * `inputSchema` (and `outputSchema`, when present) is an object schema, and the optional text
 * fields are strings. Cheap enough for every registration; schemas are compiled later, by a
 * {@link SchemaValidator}.
 *
 * @throws {ToolError} `invalid_tool` saying what is wrong (and, for names, which characters).
 */
export function validateTool(tool: unknown): asserts tool is Tool {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    failTool(tool, 'expected an object');
  }
  const t = tool as Record<string, unknown>;
  const problem =
    checkIdPart(t.name, 'name') ??
    (t.namespace === undefined ? undefined : checkIdPart(t.namespace, 'namespace')) ??
    (t.version === undefined ? undefined : checkIdPart(t.version, 'version')) ??
    checkObjectSchema(t.inputSchema, 'inputSchema') ??
    (t.outputSchema === undefined
      ? undefined
      : checkObjectSchema(t.outputSchema, 'outputSchema')) ??
    checkOptionalString(t, 'title') ??
    checkOptionalString(t, 'description') ??
    checkTags(t.tags);
  if (problem !== undefined) failTool(tool, problem);
}

// Module level, not a closure per call: registration validates every tool.
function failTool(tool: unknown, why: string): never {
  throw new ToolError('invalid_tool', `invalid tool${nameHint(tool)}: ${why}`);
}

function nameHint(tool: unknown): string {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.length <= 128 ? ` ${JSON.stringify(name)}` : '';
}

function checkOptionalString(t: Record<string, unknown>, field: string): string | undefined {
  const value = t[field];
  return value === undefined || typeof value === 'string' ? undefined : `${field} must be a string`;
}

function checkTags(tags: unknown): string | undefined {
  if (tags === undefined) return undefined;
  if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string')) {
    return 'tags must be an array of strings';
  }
  return undefined;
}

/**
 * The tool as a plain MCP `Tool` object, ready for a `tools/list` result: toolplane's
 * `namespace`, `version` and `tags` are stripped, everything MCP defines is kept.
 */
export function toMcpJson(tool: Tool): McpTool {
  const { namespace: _namespace, version: _version, tags: _tags, ...mcp } = tool;
  return mcp;
}

/** Options for {@link fromMcpJson}: the toolplane fields to attach. */
export interface FromMcpJsonOptions {
  readonly namespace?: string;
  readonly version?: string;
  readonly tags?: readonly string[];
}

/**
 * An MCP `Tool` object (one entry of a `tools/list` result) checked with the SDK's own schema
 * alone: what a client may pass on as a tool of that server. One entry that fails it need not
 * cost the rest of its list.
 *
 * @throws {ToolError} `invalid_tool` naming the tool and the first problems.
 */
export function parseMcpTool(json: unknown): Tool {
  const parsed = ToolSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ToolError('invalid_tool', `not an MCP tool${nameHint(json)}: ${issues}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/**
 * Parses an MCP `Tool` object (e.g. one entry of a `tools/list` result) with the SDK's own
 * schema, attaches the given namespace, version and (normalised) tags, and validates the result.
 *
 * @throws {ToolError} `invalid_tool` when the JSON is not an MCP tool or breaks a toolplane rule.
 */
export function fromMcpJson(json: unknown, options: FromMcpJsonOptions = {}): Tool {
  const tool: Tool = parseMcpTool(json);
  if (options.namespace !== undefined) tool.namespace = options.namespace;
  if (options.version !== undefined) tool.version = options.version;
  if (options.tags !== undefined) tool.tags = normalizeTags(options.tags);
  validateTool(tool);
  return tool;
}
