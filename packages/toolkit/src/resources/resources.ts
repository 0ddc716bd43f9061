import type {
  BlobResourceContents,
  Resource as McpResource,
  TextResourceContents,
} from '@modelcontextprotocol/client';
import { jsonProblem, optionKeys, refuseUnknownOptions, ToolError } from '@toolplane/toolmodel';
import { quoted } from '@toolplane/toolmodel/text';
import { decodeBytes } from './decode-bytes.js';
import { nameProblem } from '../names.js';

/** What a resource is, without its contents: the fields of MCP's `Resource` (`resources/list`). */
export interface ResourceInfo {
  /** Absolute URI with a scheme; identifies the resource. */
  readonly uri: string;
  /** Identifier, by toolmodel's tool-name rule. */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** Size of the contents in bytes (UTF-8 for text). */
  readonly size?: number;
}

/**
 * A resource with its contents, as MCP's `resources/read` returns them: `text`, or `blob` holding
 * base64. Build one with {@link resource}, {@link textResource}, {@link jsonResource},
 * {@link dataResource} or {@link readResource}.
 */
export type Resource = ResourceInfo &
  (
    | { readonly text: string; readonly blob?: never }
    | { readonly blob: string; readonly text?: never }
  );

/** Optional fields for the resource builders. */
export interface ResourceOptions {
  /** Default: `toolplane://resources/<name>`. */
  readonly uri?: string;
  readonly title?: string;
  readonly description?: string;
  /** Overrides the detected MIME type. */
  readonly mimeType?: string;
}

/** Options for {@link dataResource}. */
export interface DataResourceOptions extends ResourceOptions {
  /** File name whose extension gives the MIME type when the content does not. */
  readonly filename?: string;
}

/** Options for {@link readResource}. */
export interface ReadResourceOptions extends DataResourceOptions {
  /** Resource name; defaults to the file's name (required for a stream). */
  readonly name?: string;
  /** Largest content accepted, in bytes. Default {@link MAX_RESOURCE_BYTES}. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

/** Every key of {@link ResourceOptions}: what every resource builder takes. */
export const RESOURCE_OPTION_KEYS = optionKeys<ResourceOptions>({
  uri: true,
  title: true,
  description: true,
  mimeType: true,
});
const DATA_OPTION_KEYS = [
  ...RESOURCE_OPTION_KEYS,
  ...optionKeys<Omit<DataResourceOptions, keyof ResourceOptions>>({ filename: true }),
];
/** Every key of {@link ReadResourceOptions}. */
export const READ_RESOURCE_OPTION_KEYS = [
  ...DATA_OPTION_KEYS,
  ...optionKeys<Omit<ReadResourceOptions, keyof DataResourceOptions>>({
    name: true,
    maxBytes: true,
    signal: true,
  }),
];

/**
 * Refuses a key the resource builder `where` does not take: from JavaScript a misspelt one was
 * ignored (`mimetype` served `text/plain`, `maxbytes` kept the 16 MiB bound).
 *
 * @throws {ToolError} `invalid_resource` naming the key and the nearest known one.
 */
export function checkResourceOptions(
  options: unknown,
  known: readonly string[],
  where: string,
): void {
  refuseUnknownOptions(options, known, where, { code: 'invalid_resource' });
}

/** Largest resource content accepted, in bytes (16 MiB). */
export const MAX_RESOURCE_BYTES = 16 * 1024 * 1024;
/** Longest resource URI accepted, in characters. */
export const MAX_URI_LENGTH = 4096;

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const UNSAFE_URI_CHAR = /[\s\u0000-\u001f\u007f]/;
/**
 * Builds a text resource.
 *
 * @throws {ToolError} `invalid_resource` for a bad name, URI or option, or text over
 * {@link MAX_RESOURCE_BYTES}.
 */
export function textResource(name: string, text: string, options: ResourceOptions = {}): Resource {
  checkResourceOptions(options, RESOURCE_OPTION_KEYS, 'textResource');
  return textFrom(name, text, options);
}

function textFrom(name: string, text: string, options: ResourceOptions): Resource {
  if (typeof text !== 'string') {
    throw new ToolError('invalid_resource', `resource ${quoted(name)}: text must be a string`);
  }
  return validateResource({
    ...info(name, options),
    mimeType: options.mimeType ?? 'text/plain',
    text,
  });
}

/**
 * Builds a JSON resource (`application/json`, pretty-printed).
 *
 * @throws {ToolError} `invalid_resource` when `value` is not plain JSON data, or as
 * {@link textResource}.
 */
export function jsonResource(
  name: string,
  value: unknown,
  options: ResourceOptions = {},
): Resource {
  checkResourceOptions(options, RESOURCE_OPTION_KEYS, 'jsonResource');
  return jsonFrom(name, value, options);
}

function jsonFrom(name: string, value: unknown, options: ResourceOptions): Resource {
  const problem = jsonProblem(value);
  if (problem !== undefined) {
    throw new ToolError('invalid_resource', `resource ${quoted(name)}: ${problem}`);
  }
  return textFrom(name, JSON.stringify(value, null, 2), {
    ...options,
    mimeType: options.mimeType ?? 'application/json',
  });
}

/**
 * Builds a resource from bytes. The MIME type is sniffed from the content (`file-type`), then
 * taken from `filename`'s extension (`mime-types`). Text is decoded to a text resource: UTF-8,
 * UTF-16 with a BOM, or a legacy encoding detected by `chardet` and decoded with `iconv-lite`.
 * Anything else becomes a base64 `blob`.
 *
 * @throws {ToolError} `invalid_resource` for a bad name, URI or option, or more than
 * {@link MAX_RESOURCE_BYTES} bytes.
 */
export async function dataResource(
  name: string,
  data: Uint8Array,
  options: DataResourceOptions = {},
): Promise<Resource> {
  checkResourceOptions(options, DATA_OPTION_KEYS, 'dataResource');
  return dataFrom(name, data, options);
}

/** {@link dataResource} with its options' keys checked already (`readResource`'s are wider). */
export async function dataFrom(
  name: string,
  data: Uint8Array,
  options: DataResourceOptions,
): Promise<Resource> {
  if (!(data instanceof Uint8Array)) {
    throw new ToolError('invalid_resource', `resource ${quoted(name)}: data must be a Uint8Array`);
  }
  checkSize(name, data.byteLength, MAX_RESOURCE_BYTES);
  const base = info(name, options);
  return validateResource({ ...base, ...(await decodeBytes(data, options)) });
}

/**
 * Builds a resource from any value: a string becomes text, bytes become data (see
 * {@link dataResource}), a {@link Resource} is checked and kept as is, and any other JSON value
 * becomes JSON.
 *
 * @throws {ToolError} `invalid_resource` for a bad name or option, or a value none of these fit.
 */
export async function resource(
  name: string,
  value: unknown,
  options: DataResourceOptions = {},
): Promise<Resource> {
  checkResourceOptions(options, DATA_OPTION_KEYS, 'resource');
  if (typeof value === 'string') return textFrom(name, value, options);
  if (value instanceof Uint8Array) return dataFrom(name, value, options);
  if (isResourceShaped(value)) return validateResource(value);
  return jsonFrom(name, value, options);
}

/**
 * A copy of `resource` under another URI.
 *
 * @throws {ToolError} `invalid_resource` when `uri` is not absolute with a scheme.
 */
export function withUri(resource: Resource, uri: string): Resource {
  return validateResource({ ...resource, uri });
}

/**
 * A copy of `resource` with a description.
 *
 * @throws {ToolError} `invalid_resource` when `description` is not a string.
 */
export function withDescription(resource: Resource, description: string): Resource {
  return validateResource({ ...resource, description });
}

/**
 * Checks what a resource says of itself (name, URI, title, description, MIME type) and returns
 * those fields alone.
 *
 * @throws {ToolError} `invalid_resource`.
 */
export function validateResourceInfo(value: unknown): ResourceInfo {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ToolError('invalid_resource', 'a resource must be an object');
  }
  const record = value as Record<string, unknown>;
  const problem = nameProblem(record.name);
  if (problem !== undefined) {
    throw new ToolError('invalid_resource', `resource name ${problem}`);
  }
  const where = `resource ${JSON.stringify(record.name)}`;
  const uriProblem = checkUri(record.uri);
  if (uriProblem !== undefined) throw new ToolError('invalid_resource', `${where}: ${uriProblem}`);
  const out: Record<string, unknown> = { uri: record.uri, name: record.name };
  for (const key of ['title', 'description', 'mimeType'] as const) {
    const field = record[key];
    if (field === undefined) continue;
    if (typeof field !== 'string') {
      throw new ToolError('invalid_resource', `${where}: ${key} must be a string`);
    }
    out[key] = field;
  }
  return out as unknown as ResourceInfo;
}

/**
 * Checks that `value` is a well-formed {@link Resource} (as stored, or built by hand) and returns
 * a copy holding only the known fields, with `size` computed from the contents.
 *
 * @throws {ToolError} `invalid_resource` naming the bad field.
 */
export function validateResource(value: unknown): Resource {
  const out: Record<string, unknown> = { ...validateResourceInfo(value) };
  const record = value as Record<string, unknown>;
  const where = `resource ${JSON.stringify(record.name)}`;
  const { text, blob } = record;
  if ((text === undefined) === (blob === undefined)) {
    throw new ToolError('invalid_resource', `${where}: needs exactly one of text or blob`);
  }
  let size: number;
  if (text !== undefined) {
    if (typeof text !== 'string')
      throw new ToolError('invalid_resource', `${where}: text must be a string`);
    size = Buffer.byteLength(text, 'utf8');
    out.text = text;
  } else {
    if (typeof blob !== 'string' || !isBase64(blob)) {
      throw new ToolError('invalid_resource', `${where}: blob must be a base64 string`);
    }
    size = Buffer.byteLength(blob, 'base64');
    out.blob = blob;
  }
  checkSize(String(record.name), size, MAX_RESOURCE_BYTES);
  out.size = size;
  return out as unknown as Resource;
}

/** The resource as MCP lists it (`resources/list`): everything but the contents. */
export function toMcpResource(resource: ResourceInfo): McpResource {
  const mcp: McpResource = { uri: resource.uri, name: resource.name };
  if (resource.title !== undefined) mcp.title = resource.title;
  if (resource.description !== undefined) mcp.description = resource.description;
  if (resource.mimeType !== undefined) mcp.mimeType = resource.mimeType;
  if (resource.size !== undefined) mcp.size = resource.size;
  return mcp;
}

/** The resource's contents as one entry of MCP's `resources/read` result. */
export function toResourceContents(
  resource: Resource,
): TextResourceContents | BlobResourceContents {
  const base =
    resource.mimeType === undefined
      ? { uri: resource.uri }
      : { uri: resource.uri, mimeType: resource.mimeType };
  return resource.text !== undefined
    ? { ...base, text: resource.text }
    : { ...base, blob: resource.blob };
}

/** The {@link ResourceInfo} part of a resource, as a store lists it. */
export function resourceInfo(resource: ResourceInfo): ResourceInfo {
  const { uri, name, title, description, mimeType, size } = resource;
  const out: { -readonly [K in keyof ResourceInfo]: ResourceInfo[K] } = { uri, name };
  if (title !== undefined) out.title = title;
  if (description !== undefined) out.description = description;
  if (mimeType !== undefined) out.mimeType = mimeType;
  if (size !== undefined) out.size = size;
  return out;
}

/**
 * The name, URI, title and description of a resource being built.
 *
 * @throws {ToolError} `invalid_resource` for a bad name.
 */
export function info(name: string, options: ResourceOptions): Record<string, unknown> {
  const problem = nameProblem(name);
  if (problem !== undefined) throw new ToolError('invalid_resource', `resource name ${problem}`);
  const out: Record<string, unknown> = {
    uri: options.uri ?? `toolplane://resources/${name}`,
    name,
  };
  if (options.title !== undefined) out.title = options.title;
  if (options.description !== undefined) out.description = options.description;
  return out;
}

function checkUri(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return `uri must be a string, got ${typeof uri}`;
  if (uri.length > MAX_URI_LENGTH)
    return `uri is ${uri.length} characters long (at most ${MAX_URI_LENGTH})`;
  if (!SCHEME.test(uri) || UNSAFE_URI_CHAR.test(uri) || !URL.canParse(uri)) {
    return `uri ${quoted(uri)} is not an absolute URI with a scheme (e.g. file:///notes.md, docs://guide)`;
  }
  return undefined;
}

/** @throws {ToolError} `invalid_resource` when `bytes` is over `max`. */
export function checkSize(name: string, bytes: number, max: number): void {
  if (bytes > max) {
    throw new ToolError(
      'invalid_resource',
      `resource ${JSON.stringify(name)} is ${bytes} bytes (at most ${max}); split it or serve it by reference`,
    );
  }
}

function isResourceShaped(value: unknown): value is Resource {
  if (typeof value !== 'object' || value === null) return false;
  const { uri, name, text, blob } = value as Record<string, unknown>;
  return (
    typeof uri === 'string' &&
    typeof name === 'string' &&
    (typeof text === 'string' || typeof blob === 'string')
  );
}

function isBase64(value: string): boolean {
  return value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value);
}
