import { createRequire } from 'node:module';
import { basename, extname } from 'node:path';
import type { PromptMessage } from '@modelcontextprotocol/client';
import { parseToolId, ToolError, jsonProblem } from '@toolplane/toolmodel';
import { quoted } from '@toolplane/toolmodel/text';
import type { JsonSchema, SchemaValidator } from '@toolplane/toolmodel';
import { specIssue } from '../spec-check.js';
import { nameProblem } from '../names.js';
import { compileTemplate, type TemplateLimits } from './template.js';

// The YAML parser (~170 kB) loads with the first front matter it reads, not with the toolkit:
// most processes never read a prompt file (`toolplane tools list` among them).
let yaml: typeof import('yaml') | undefined;
const loadYaml = (): typeof import('yaml') =>
  (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

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

/** Options for `loadPrompts` and `loadPromptFile` (prompt-files.ts). */
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
// The seed's rule for a prompt's title, wherever it comes from: front matter, heading or code.
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
  title: ['title', isTitle],
  description: ['description', isString],
  model: ['model', isString],
  provider: ['provider', isString],
  system_prompt: ['systemPrompt', isString],
  input: ['input', isSchema],
  output: ['output', isSchema],
  // The seed's own spelling of `output`.
  format: ['output', isSchema],
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
  if (Object.hasOwn(data, 'format') && Object.hasOwn(data, 'output')) {
    throw new ToolError(
      'invalid_prompt',
      `${where}: both "format" and "output" give the output schema; keep one`,
    );
  }
  for (const [yamlKey, value] of Object.entries(data)) {
    const field = Object.hasOwn(FIELDS, yamlKey) ? FIELDS[yamlKey] : undefined;
    if (field === undefined) {
      throw new ToolError(
        'invalid_prompt',
        `${where}: unknown front-matter key ${JSON.stringify(yamlKey)} (known: ${Object.keys(FIELDS).join(', ')})`,
      );
    }
    fields[field[0]] = value;
  }
  fields.name ??= options.filename === undefined ? undefined : nameFromFile(options.filename);
  if (fields.title === undefined) {
    // The seed's title rule holds for a title taken from the first heading too.
    const heading = firstHeading(body);
    const problem = heading === undefined ? undefined : isTitle(heading);
    if (problem !== undefined) {
      throw new ToolError(
        'invalid_prompt',
        `${where}: title (the first # heading) ${problem}; lengthen the heading or set title: in the front matter`,
      );
    }
    fields.title = heading;
  }
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
    options.filename ?? (typeof name === 'string' ? `prompt ${quoted(name)}` : 'prompt');
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
 * The template strings of prompt messages: text, and resource and link URIs and text.
 * @internal
 */
export function messageTemplates(messages: readonly PromptMessage[]): string[] {
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

function parseFrontMatter(yamlText: string, where: string): Record<string, unknown> {
  if (yamlText.length > MAX_FRONT_MATTER_LENGTH) {
    throw new ToolError(
      'invalid_prompt',
      `${where}: front matter is ${yamlText.length} characters long (at most ${MAX_FRONT_MATTER_LENGTH})`,
    );
  }
  // The core schema knows only plain scalars, lists and maps; any other tag (`!!js/function`,
  // `!custom`) is left unresolved and reported as a warning, which is rejected below.
  const doc = loadYaml().parseDocument(yamlText, {
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
