import { UriTemplate, type Variables } from '@modelcontextprotocol/client';
import type {
  CompleteResult,
  ResourceTemplateType as McpResourceTemplate,
} from '@modelcontextprotocol/client';
import { optionKeys, refuseUnknownOptions, throwIfAborted, ToolError } from '@toolplane/toolmodel';
import { quoted } from '@toolplane/toolmodel/text';
import { nameProblem } from '../names.js';
import { resource as toResource, validateResource, type Resource } from './resources.js';

/** What a resource template's `read` receives besides the URI's variables. */
export interface ResourceTemplateReadContext {
  /** The URI being read. */
  readonly uri: string;
  readonly signal?: AbortSignal;
}

/** What a resource template's completer receives besides the value typed so far. */
export interface ResourceTemplateCompleteContext {
  /** The template's other variables, as the client has filled them in so far. */
  readonly arguments: Readonly<Record<string, string>>;
}

/** The definition {@link defineResourceTemplate} takes. */
export interface ResourceTemplateDefinition {
  /** An RFC 6570 URI template, e.g. `notes://{folder}/{id}`. */
  readonly uriTemplate: string;
  /** Identifier, by toolmodel's tool-name rule; also the name of the resources it reads. */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** The MIME type of the resources it reads, when they share one. */
  readonly mimeType?: string;
  /**
   * Reads the resource at a URI the template matches. Returns a {@link Resource} or any value
   * `resource()` accepts (a string is text, bytes are data, anything else JSON); its URI is the
   * one read.
   */
  readonly read: (variables: Variables, context: ResourceTemplateReadContext) => unknown;
  /** Completion values for a variable (`completion/complete`), by variable name. */
  readonly complete?: Readonly<
    Record<
      string,
      (
        value: string,
        context: ResourceTemplateCompleteContext,
      ) => readonly string[] | Promise<readonly string[]>
    >
  >;
}

/** A resource template ready for a toolkit (see {@link defineResourceTemplate}). */
export interface ResourceTemplate extends ResourceTemplateDefinition {
  /** The template as MCP lists it (`resources/templates/list`). */
  readonly mcp: McpResourceTemplate;
  /** The URI's variables when the template matches `uri`, else `undefined`. */
  match(uri: string): Variables | undefined;
}

const MAX_COMPLETIONS = 100;

const DEFINITION_KEYS = optionKeys<ResourceTemplateDefinition>({
  uriTemplate: true,
  name: true,
  title: true,
  description: true,
  mimeType: true,
  read: true,
  complete: true,
});

/**
 * Defines a builtin resource template: URIs matching `uriTemplate` are read by `read`, and its
 * variables may be completed by `complete`. Register it with `createToolkit({ resourceTemplates })`
 * or `toolkit.addResourceTemplate`.
 *
 * @throws {ToolError} `invalid_resource` for a key a definition does not have, a bad name, an
 * unparsable URI template or a missing `read` function.
 *
 * @example
 * const note = defineResourceTemplate({
 *   uriTemplate: 'notes://{id}',
 *   name: 'note',
 *   mimeType: 'text/markdown',
 *   read: ({ id }) => notes.get(String(id)) ?? '',
 * });
 */
export function defineResourceTemplate(definition: ResourceTemplateDefinition): ResourceTemplate {
  // A misspelt `mimeType` or `complete` would be dropped from what clients are told, silently.
  refuseUnknownOptions(definition, DEFINITION_KEYS, 'defineResourceTemplate', {
    code: 'invalid_resource',
  });
  const { uriTemplate, name, read, complete } = definition;
  const problem = nameProblem(name);
  if (problem !== undefined) {
    throw new ToolError('invalid_resource', `resource template name ${problem}`);
  }
  const where = `resource template ${quoted(name)}`;
  let parsed: UriTemplate;
  try {
    if (typeof uriTemplate !== 'string' || uriTemplate.length === 0) throw new Error('empty');
    parsed = new UriTemplate(uriTemplate);
  } catch (error) {
    throw new ToolError(
      'invalid_resource',
      `${where}: uriTemplate ${JSON.stringify(uriTemplate)} is not an RFC 6570 URI template`,
      { cause: error },
    );
  }
  if (typeof read !== 'function') {
    throw new ToolError('invalid_resource', `${where} needs a read function`);
  }
  for (const [variable, completer] of Object.entries(complete ?? {})) {
    if (typeof completer !== 'function') {
      throw new ToolError('invalid_resource', `${where}: complete.${variable} must be a function`);
    }
  }
  const mcp: McpResourceTemplate = { uriTemplate, name };
  for (const key of ['title', 'description', 'mimeType'] as const) {
    const value = definition[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      throw new ToolError('invalid_resource', `${where}: ${key} must be a string`);
    }
    mcp[key] = value;
  }
  return {
    ...definition,
    mcp,
    match(uri) {
      try {
        return parsed.match(uri) ?? undefined;
      } catch {
        return undefined; // a URI too long or odd to match is not this template's
      }
    },
  };
}

/**
 * Reads `uri` through `template`, or `undefined` when the template does not match it.
 *
 * @throws {ToolError} `invalid_resource` when `read` returns something that is not a resource;
 * `cancelled`; whatever `read` throws.
 * @internal
 */
export async function readTemplate(
  template: ResourceTemplate,
  uri: string,
  signal?: AbortSignal,
): Promise<Resource | undefined> {
  const variables = template.match(uri);
  if (variables === undefined) return undefined;
  throwIfAborted(signal);
  const value: unknown = await template.read(
    variables,
    signal === undefined ? { uri } : { uri, signal },
  );
  throwIfAborted(signal);
  const found = await toResource(template.name, value, {
    uri,
    ...(template.mimeType === undefined ? {} : { mimeType: template.mimeType }),
  });
  return validateResource({ ...found, uri });
}

/**
 * Completion values for one of `template`'s variables: its completer's values (at most 100);
 * none when it has no completer for that variable.
 *
 * @internal
 */
export async function completeTemplate(
  template: ResourceTemplate,
  variable: string,
  value: string,
  context: ResourceTemplateCompleteContext,
): Promise<CompleteResult['completion']> {
  const completer =
    template.complete !== undefined && Object.hasOwn(template.complete, variable)
      ? template.complete[variable]
      : undefined;
  if (completer === undefined) return { values: [] };
  const all = (await completer(value, context)).filter(
    (candidate): candidate is string => typeof candidate === 'string',
  );
  return {
    values: all.slice(0, MAX_COMPLETIONS),
    total: all.length,
    hasMore: all.length > MAX_COMPLETIONS,
  };
}
