import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type {
  CompleteResult,
  Prompt as McpPrompt,
  PromptArgument as McpPromptArgument,
  PromptMessage,
} from '@modelcontextprotocol/client';
import { createValidator, parseToolId, throwIfAborted, ToolError } from '@toolplane/toolmodel';
import type { JsonSchema, SchemaValidator } from '@toolplane/toolmodel';
import { parseDocument } from 'yaml';
import { specIssue } from './spec-check.js';
import { jsonProblem } from './json-value.js';
import { nameProblem } from './names.js';
import { compileTemplate, renderTemplate, type TemplateLimits } from './template.js';

/**
 * A prompt (an "agent"): a Liquid template plus the settings a model runs it with. Plain data, so
 * a {@link Store} can keep it as JSON. Read one from markdown with {@link parsePrompt}.
 */
export interface Prompt {
  /** Identifier, by toolmodel's tool-name rule. */
  readonly name: string;
  /** Display name. */
  readonly title?: string;
  readonly description?: string;
  /** Model the prompt is written for, e.g. `claude-sonnet-4-5`. */
  readonly model?: string;
  /** Provider of that model, e.g. `anthropic`. */
  readonly provider?: string;
  /** System prompt; a template rendered with the same input as the body. */
  readonly systemPrompt?: string;
  /**
   * JSON Schema of the render input. An object schema's properties become MCP arguments and the
   * template's variables; any other schema (the seed's `type: string`) takes one MCP argument,
   * `input`, bound to the template's root value `{{ . }}`.
   */
  readonly input?: JsonSchema;
  /** JSON Schema of the answer the prompt asks for. */
  readonly output?: JsonSchema;
  /** Canonical IDs of the tools the prompt may use. */
  readonly tools?: readonly string[];
  /** Whether the model should think before answering. */
  readonly thinking?: boolean;
  /** Token budget for thinking. */
  readonly thinkingBudget?: number;
  readonly maxTokens?: number;
  /**
   * The most model steps (each a model call with its tool calls) an agent running the prompt may
   * take, from 1 to {@link MAX_PROMPT_STEPS}; front matter `max_steps`.
   */
  readonly maxSteps?: number;
  /** Only tools of these namespaces are offered to an agent running the prompt. */
  readonly toolNamespaces?: readonly string[];
  /** Only tools with at least one of these tags are offered to an agent running the prompt. */
  readonly toolTags?: readonly string[];
  /**
   * MCP prompt messages that come before the body (images, audio, embedded resources, resource
   * links, text, from the user or the assistant). The `text` of text blocks and the `uri` and
   * `text` of resources and resource links are Liquid templates rendered with the same input.
   */
  readonly messages?: readonly PromptMessage[];
  /**
   * The body: a Liquid template (or the seed's Go-template forms `{{ . }}`, `{{ .field }}` and
   * pipelines into json/default/join/upper/lower/trim), sent as the last user message (omitted
   * when it renders empty and `messages` are given).
   */
  readonly template: string;
}

/** Options for {@link parsePrompt}. */
export interface ParsePromptOptions {
  /** File the text came from: the default name, and named in every error. */
  readonly filename?: string;
}

/** Options for {@link loadPrompts}. */
export interface LoadPromptsOptions {
  readonly signal?: AbortSignal;
}

/** Options for {@link renderPrompt}. */
export interface RenderPromptOptions {
  /**
   * Validates the input against the prompt's `input` schema before rendering. Default: one shared
   * `createValidator()` from `@toolplane/toolmodel`.
   */
  readonly validator?: SchemaValidator;
  /** Output, time and memory bounds of the render. */
  readonly limits?: TemplateLimits;
  readonly signal?: AbortSignal;
}

/** The result of {@link renderPrompt}. */
export interface RenderedPrompt {
  /** The rendered body. */
  readonly text: string;
  /** The rendered system prompt, kept apart: MCP prompt messages have no system role. */
  readonly systemPrompt?: string;
  /** The prompt's `messages`, then the body, as MCP prompt messages (`prompts/get`). */
  readonly messages: PromptMessage[];
}

/** Largest prompt file accepted, in bytes. */
export const MAX_PROMPT_BYTES = 1024 * 1024;
/** Largest front matter accepted, in characters. */
export const MAX_FRONT_MATTER_LENGTH = 64 * 1024;

const MAX_ALIASES = 50;
// The most values one completion/complete result may carry.
const MAX_COMPLETIONS = 100;
// Created on first use: a validator caches prepared schemas, so one is shared by every render.
let defaultValidator: SchemaValidator | undefined;
const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|$)/;
const HEADING = /^#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;

type Field = (value: unknown) => string | undefined;

const isString: Field = (v) => (typeof v === 'string' ? undefined : 'must be a string');
const isBoolean: Field = (v) => (typeof v === 'boolean' ? undefined : 'must be true or false');
const isCount: Field = (v) =>
  Number.isSafeInteger(v) && (v as number) > 0 ? undefined : 'must be a positive integer';
/** The most steps a prompt may give an agent ({@link Prompt.maxSteps}). */
export const MAX_PROMPT_STEPS = 1000;
const isSteps: Field = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_PROMPT_STEPS
    ? undefined
    : `must be an integer from 1 to ${MAX_PROMPT_STEPS}`;
const isNames: Field = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((item) => typeof item === 'string' && item !== '')
    ? undefined
    : 'must be a non-empty list of names';
// The seed's rule for a prompt file's title.
const MIN_TITLE_LENGTH = 10;
const isTitle: Field = (v) =>
  typeof v !== 'string'
    ? 'must be a string'
    : v.trim().length < MIN_TITLE_LENGTH
      ? `must be at least ${MIN_TITLE_LENGTH} characters long, got ${JSON.stringify(v)}`
      : undefined;
const isSchema: Field = (v) =>
  typeof v === 'boolean' || (typeof v === 'object' && v !== null && !Array.isArray(v))
    ? undefined
    : 'must be a JSON Schema (an object or a boolean)';
const isToolList: Field = (v) => {
  if (!Array.isArray(v)) return 'must be a list of tool IDs';
  for (const id of v) {
    try {
      parseToolId(id);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return undefined;
};

const isMessageList: Field = (v) => {
  if (!Array.isArray(v)) return 'must be a list of MCP prompt messages';
  for (const [i, message] of v.entries()) {
    const issue = specIssue('PromptMessage', message);
    if (issue !== undefined) {
      return `/${i}${issue === '' ? '' : `/${issue.replace(' ', ': ')}`} is not a valid MCP prompt message`;
    }
  }
  return undefined;
};

// Front-matter key → [Prompt key, check]. Unknown keys are an error, so a typo is not silently
// ignored.
const FIELDS: Readonly<Record<string, readonly [keyof Prompt, Field]>> = {
  name: ['name', (v) => nameProblem(v)],
  title: ['title', isString],
  description: ['description', isString],
  model: ['model', isString],
  provider: ['provider', isString],
  system_prompt: ['systemPrompt', isString],
  input: ['input', isSchema],
  output: ['output', isSchema],
  tools: ['tools', isToolList],
  thinking: ['thinking', isBoolean],
  thinking_budget: ['thinkingBudget', isCount],
  max_tokens: ['maxTokens', isCount],
  max_steps: ['maxSteps', isSteps],
  tool_namespaces: ['toolNamespaces', isNames],
  tool_tags: ['toolTags', isNames],
  messages: ['messages', isMessageList],
};
const KEYS = new Map(Object.values(FIELDS));

/**
 * Parses a markdown prompt: optional YAML front matter between `---` lines, then the body
 * template. `name` defaults to the file name without its extension, `title` to the first
 * `# Heading` of the body. The front matter is read as plain data (YAML core schema, no custom
 * tags, bounded size and aliases), so it cannot run code.
 *
 * @throws {ToolError} `invalid_prompt` naming the file when the front matter or template is bad.
 */
export function parsePrompt(text: string, options: ParsePromptOptions = {}): Prompt {
  const where = options.filename ?? 'prompt';
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const match = FRONT_MATTER.exec(source);
  const data = match === null ? {} : parseFrontMatter(match[1] ?? '', where);
  const body = match === null ? source : source.slice(match[0].length);

  const fields: Record<string, unknown> = {};
  for (const [yamlKey, value] of Object.entries(data)) {
    const field = Object.hasOwn(FIELDS, yamlKey) ? FIELDS[yamlKey] : undefined;
    if (field === undefined) {
      throw new ToolError(
        'invalid_prompt',
        `${where}: unknown front-matter key ${JSON.stringify(yamlKey)} (known: ${Object.keys(FIELDS).join(', ')})`,
      );
    }
    // A title written in the file keeps the seed's rule; one taken from a heading is a label.
    const titleProblem = yamlKey === 'title' ? isTitle(value) : undefined;
    if (titleProblem !== undefined) {
      throw new ToolError('invalid_prompt', `${where}: title ${titleProblem}`);
    }
    fields[field[0]] = value;
  }
  fields.name ??= options.filename === undefined ? undefined : nameFromFile(options.filename);
  fields.title ??= firstHeading(body);
  fields.template = body;
  return validatePrompt(fields, { filename: options.filename });
}

/**
 * Checks that `value` is a well-formed {@link Prompt} (as stored, or built in code) and returns a
 * copy holding only the known fields.
 *
 * @throws {ToolError} `invalid_prompt` for a missing or bad field or a template that does not parse.
 */
export function validatePrompt(value: unknown, options: ParsePromptOptions = {}): Prompt {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ToolError('invalid_prompt', 'a prompt must be an object');
  }
  const record = value as Record<string, unknown>;
  const name = record.name;
  const where =
    options.filename ?? (typeof name === 'string' ? `prompt ${JSON.stringify(name)}` : 'prompt');
  if (name === undefined) {
    throw new ToolError('invalid_prompt', `${where}: has no name; set "name" in the front matter`);
  }
  const prompt: Record<string, unknown> = {};
  for (const [key, check] of KEYS) {
    const field = record[key];
    if (field === undefined) continue;
    const problem = check(field) ?? jsonProblem(field);
    if (problem !== undefined) {
      throw new ToolError('invalid_prompt', `${where}: ${key} ${problem}`);
    }
    prompt[key] = Array.isArray(field) && key !== 'messages' ? [...(field as string[])] : field;
    if (key === 'messages') {
      for (const source of messageTemplates(field as PromptMessage[]))
        compileTemplate(source, where);
    }
  }
  if (typeof record.template !== 'string') {
    throw new ToolError('invalid_prompt', `${where}: template must be a string`);
  }
  prompt.template = record.template;
  compileTemplate(record.template, where);
  if (typeof prompt.systemPrompt === 'string') compileTemplate(prompt.systemPrompt, where);
  return prompt as unknown as Prompt;
}

/**
 * Loads every `*.md` file of a directory (not its subdirectories) as a prompt, in file-name
 * order, so the result is the same on every machine.
 *
 * @throws {ToolError} `invalid_prompt` naming the file for a bad, oversized or duplicate prompt;
 * `not_found` when the directory does not exist; `cancelled` when `signal` aborts.
 */
export async function loadPrompts(
  dir: string,
  options: LoadPromptsOptions = {},
): Promise<Prompt[]> {
  const { signal } = options;
  throwIfAborted(signal);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ToolError(
      missing ? 'not_found' : 'invalid_prompt',
      `cannot read the prompt directory ${JSON.stringify(dir)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const files = entries
    .filter((entry) => entry.isFile() && extname(entry.name).toLowerCase() === '.md')
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const prompts: Prompt[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    throwIfAborted(signal);
    const path = join(dir, file);
    const size = (await stat(path)).size;
    if (size > MAX_PROMPT_BYTES) {
      throw new ToolError(
        'invalid_prompt',
        `${path}: file is ${size} bytes (at most ${MAX_PROMPT_BYTES})`,
      );
    }
    const prompt = parsePrompt(await readFile(path, { encoding: 'utf8', signal }), {
      filename: path,
    });
    const previous = seen.get(prompt.name);
    if (previous !== undefined) {
      throw new ToolError(
        'invalid_prompt',
        `${path}: prompt name ${JSON.stringify(prompt.name)} is already used by ${previous}`,
      );
    }
    seen.set(prompt.name, path);
    prompts.push(prompt);
  }
  return prompts;
}

/**
 * Renders a prompt's body (and system prompt) with `input` in a sandboxed Liquid engine: no code
 * runs, lookups never reach prototypes, and output size, time and memory are bounded (see
 * {@link TemplateLimits}). Filters: `json`, `default`, `join`, `upper`, `lower`, `trim` and
 * Liquid's standard ones.
 *
 * @throws {ToolError} `invalid_argument` when `input` is not a plain JSON object; `validation`
 * (with the schema violations in `errors`) when it breaks the prompt's input schema;
 * `invalid_schema` or `unsupported_schema` for an input schema the validator cannot use;
 * `invalid_prompt` when the template fails or exceeds a limit; `cancelled` when `signal` aborts.
 */
export async function renderPrompt(
  prompt: Prompt,
  input: Record<string, unknown> = {},
  options: RenderPromptOptions = {},
): Promise<RenderedPrompt> {
  const { signal, limits } = options;
  throwIfAborted(signal);
  const where = `prompt ${JSON.stringify(prompt.name)}`;
  // Typed as a record, but it often comes straight from JSON over the wire.
  const given: unknown = input;
  const problem =
    typeof given === 'object' && given !== null && !Array.isArray(given)
      ? jsonProblem(given)
      : 'must be an object';
  if (problem !== undefined) {
    throw new ToolError('invalid_argument', `${where}: input ${problem}`);
  }
  const root = rootValue(prompt.input, input, where);
  if (prompt.input !== undefined) {
    const validator = options.validator ?? (defaultValidator ??= createValidator());
    const result = validator.validate(prompt.input, root);
    if (!result.valid) {
      const first = result.errors[0];
      throw new ToolError(
        'validation',
        `${where}: input does not match its schema${first === undefined ? '' : `: ${first.path || '/'} ${first.message}`}`,
        { errors: result.errors },
      );
    }
  }
  const text = await renderTemplate(prompt.template, root, { where, limits });
  const systemPrompt =
    prompt.systemPrompt === undefined
      ? undefined
      : await renderTemplate(prompt.systemPrompt, root, {
          where: `${where} (system prompt)`,
          limits,
        });
  const messages: PromptMessage[] = [];
  for (const message of prompt.messages ?? []) {
    messages.push(await renderMessage(message, root, { where, limits }));
  }
  throwIfAborted(signal);
  if (messages.length === 0 || text.trim() !== '') {
    messages.push({ role: 'user', content: { type: 'text', text } });
  }
  return systemPrompt === undefined ? { text, messages } : { text, systemPrompt, messages };
}

/** The name of the one MCP argument of a prompt whose input is not an object. */
export const ROOT_ARGUMENT = 'input';

/** Whether `schema` describes an object (or is absent): its properties are the arguments. */
function takesObject(schema: JsonSchema | undefined): boolean {
  if (typeof schema !== 'object') return true;
  const { type } = schema as { type?: unknown };
  return type === undefined || type === 'object';
}

/**
 * The value a prompt renders with: the input itself for an object schema; for any other (the
 * seed's `type: string`), its one argument {@link ROOT_ARGUMENT}, read as JSON when the schema
 * wants something other than a string (MCP arguments are strings).
 */
function rootValue(
  schema: JsonSchema | undefined,
  input: Record<string, unknown>,
  where: string,
): unknown {
  if (takesObject(schema)) return input;
  const value = input[ROOT_ARGUMENT];
  if (value === undefined) {
    throw new ToolError(
      'validation',
      `${where}: input needs its one argument ${JSON.stringify(ROOT_ARGUMENT)}`,
    );
  }
  const { type } = schema as { type?: unknown };
  if (typeof value !== 'string' || type === 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** The template strings of prompt messages: text, and resource and link URIs and text. */
function messageTemplates(messages: readonly PromptMessage[]): string[] {
  return messages.flatMap(({ content }) => {
    switch (content.type) {
      case 'text':
        return [content.text];
      case 'resource':
        return 'text' in content.resource
          ? [content.resource.uri, content.resource.text]
          : [content.resource.uri];
      case 'resource_link':
        return [content.uri];
      default:
        return [];
    }
  });
}

async function renderMessage(
  message: PromptMessage,
  input: unknown,
  options: { readonly where: string; readonly limits: TemplateLimits | undefined },
): Promise<PromptMessage> {
  const render = (source: string) => renderTemplate(source, input, options);
  const renderUri = async (source: string) => {
    const uri = await render(source);
    if (!URL.canParse(uri)) {
      throw new ToolError(
        'invalid_argument',
        `${options.where}: a message's resource URI renders as ${JSON.stringify(uri)}, which is not an absolute URI`,
      );
    }
    return uri;
  };
  const { role, content } = message;
  switch (content.type) {
    case 'text':
      return { role, content: { ...content, text: await render(content.text) } };
    case 'resource': {
      const uri = await renderUri(content.resource.uri);
      const resource =
        'text' in content.resource
          ? { ...content.resource, uri, text: await render(content.resource.text) }
          : { ...content.resource, uri };
      return { role, content: { ...content, resource } };
    }
    case 'resource_link':
      return { role, content: { ...content, uri: await renderUri(content.uri) } };
    default:
      return { role, content };
  }
}

/**
 * Completion values (`completion/complete`) for one argument of a prompt: the string `enum`
 * values, else the string `examples`, of that argument's property in the input schema, those
 * starting with `value` (ignoring case), at most 100.
 */
export function completePromptArgument(
  prompt: Prompt,
  argument: string,
  value: string,
): CompleteResult['completion'] {
  const schema = typeof prompt.input === 'object' ? prompt.input : undefined;
  const properties = schema?.properties as Record<string, unknown> | undefined;
  const property =
    properties !== undefined && Object.hasOwn(properties, argument)
      ? properties[argument]
      : undefined;
  const { enum: choices, examples } = (
    typeof property === 'object' && property !== null ? property : {}
  ) as Record<string, unknown>;
  const candidates = (
    Array.isArray(choices) ? choices : Array.isArray(examples) ? examples : []
  ).filter((candidate): candidate is string => typeof candidate === 'string');
  const prefix = value.toLowerCase();
  const values = candidates.filter((candidate) => candidate.toLowerCase().startsWith(prefix));
  return {
    values: values.slice(0, MAX_COMPLETIONS),
    total: values.length,
    hasMore: values.length > MAX_COMPLETIONS,
  };
}
/**
 * The prompt as an MCP prompt (`prompts/list`): its arguments are the input schema's top-level
 * properties, with their descriptions and the schema's `required` list.
 */
export function toMcpPrompt(prompt: Prompt): McpPrompt {
  const mcp: McpPrompt = { name: prompt.name };
  if (prompt.title !== undefined) mcp.title = prompt.title;
  if (prompt.description !== undefined) mcp.description = prompt.description;
  const schema = typeof prompt.input === 'object' ? prompt.input : undefined;
  if (!takesObject(schema)) {
    const description = describeProperty(schema);
    mcp.arguments = [
      {
        name: ROOT_ARGUMENT,
        required: true,
        ...(description === undefined ? {} : { description }),
      },
    ];
    return mcp;
  }
  const properties = schema?.properties;
  if (typeof properties === 'object' && properties !== null) {
    const required = new Set(Array.isArray(schema?.required) ? (schema.required as unknown[]) : []);
    mcp.arguments = Object.entries(properties as Record<string, unknown>).map(
      ([name, property]) => {
        const argument: McpPromptArgument = { name };
        const description = describeProperty(property);
        if (description !== undefined) argument.description = description;
        if (required.has(name)) argument.required = true;
        return argument;
      },
    );
  }
  return mcp;
}

function describeProperty(property: unknown): string | undefined {
  if (typeof property !== 'object' || property === null) return undefined;
  const { description, title } = property as Record<string, unknown>;
  if (typeof description === 'string') return description;
  return typeof title === 'string' ? title : undefined;
}

function parseFrontMatter(yamlText: string, where: string): Record<string, unknown> {
  if (yamlText.length > MAX_FRONT_MATTER_LENGTH) {
    throw new ToolError(
      'invalid_prompt',
      `${where}: front matter is ${yamlText.length} characters long (at most ${MAX_FRONT_MATTER_LENGTH})`,
    );
  }
  // The core schema knows only plain scalars, lists and maps; any other tag (`!!js/function`,
  // `!custom`) is left unresolved and reported as a warning, which is rejected below.
  const doc = parseDocument(yamlText, {
    schema: 'core',
    customTags: [],
    merge: false,
    uniqueKeys: true,
    prettyErrors: false,
  });
  const issue = doc.errors[0] ?? doc.warnings[0];
  if (issue !== undefined) {
    throw new ToolError('invalid_prompt', `${where}: front matter: ${issue.message}`, {
      cause: issue,
    });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    throw new ToolError('invalid_prompt', `${where}: front matter: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new ToolError('invalid_prompt', `${where}: front matter must be a mapping of keys`);
  }
  const problem = jsonProblem(data);
  if (problem !== undefined) {
    throw new ToolError('invalid_prompt', `${where}: front matter is not plain data: ${problem}`);
  }
  return data as Record<string, unknown>;
}

function nameFromFile(filename: string): string {
  const file = basename(filename);
  const ext = extname(file);
  return ext === '' ? file : file.slice(0, -ext.length);
}

function firstHeading(body: string): string | undefined {
  let fence: string | undefined;
  for (const line of body.split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = HEADING.exec(line)?.[1];
    if (heading !== undefined) return heading;
  }
  return undefined;
}
