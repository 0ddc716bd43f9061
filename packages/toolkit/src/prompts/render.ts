// Using a prompt: rendering it with an input, and its MCP form (arguments, completion values).
// Reading and checking prompt files is prompts.ts.
import type {
  CompleteResult,
  Prompt as McpPrompt,
  PromptArgument as McpPromptArgument,
  PromptMessage,
} from '@modelcontextprotocol/client';
import { createValidator, throwIfAborted, ToolError, jsonProblem } from '@toolplane/toolmodel';
import type { JsonSchema, SchemaValidator } from '@toolplane/toolmodel';
import {
  messageTemplates,
  type Prompt,
  type RenderedPrompt,
  type RenderPromptOptions,
} from './prompts.js';
import { renderTemplate, templateVariables, type TemplateLimits } from './template.js';

// The most values one completion/complete result may carry.
const MAX_COMPLETIONS = 100;
// Created on first use: a validator caches prepared schemas, so one is shared by every render.
let defaultValidator: SchemaValidator | undefined;

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
 * properties, with their descriptions and the schema's `required` list. A prompt without an
 * input schema offers the variables its templates read (body, system prompt, messages), none of
 * them required: a client then knows what to ask for, and a template's `default` still works.
 */
export function toMcpPrompt(prompt: Prompt): McpPrompt {
  const mcp: McpPrompt = { name: prompt.name };
  if (prompt.title !== undefined) mcp.title = prompt.title;
  if (prompt.description !== undefined) mcp.description = prompt.description;
  if (prompt.input === undefined) {
    const names = templatesVariables(prompt);
    if (names.length > 0) mcp.arguments = names.map((name) => ({ name }));
    return mcp;
  }
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

/** The variables `prompt`'s templates read, each once, in the order they first appear. */
function templatesVariables(prompt: Prompt): string[] {
  const where = `prompt ${JSON.stringify(prompt.name)}`;
  const sources = [
    prompt.template,
    ...(prompt.systemPrompt === undefined ? [] : [prompt.systemPrompt]),
    ...messageTemplates(prompt.messages ?? []),
  ];
  return [...new Set(sources.flatMap((source) => variablesOrNone(source, where)))];
}

/**
 * The variables `source` reads; none when it does not parse (a prompt built in code and never
 * checked): the listing of every prompt goes on, and rendering that one says what is wrong.
 */
function variablesOrNone(source: string, where: string): string[] {
  try {
    return templateVariables(source, where);
  } catch {
    return [];
  }
}
