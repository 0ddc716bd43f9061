import { Liquid, type Template } from 'liquidjs';
import { ToolError } from '@toolplane/toolmodel';
import { executeGoTemplate } from './go-template/exec.js';
import { goTemplateFields } from './go-template/fields.js';
import { looksLikeGoTemplate, parseGoTemplate } from './go-template/parse.js';
import type { Node as GoNode } from './go-template/tree.js';

/** Bounds applied to every template render; see {@link renderTemplate}. */
export interface TemplateLimits {
  /** Longest rendered output, in UTF-16 code units. Default 1,000,000. */
  readonly maxOutputLength?: number;
  /** Wall-clock budget for one render, in milliseconds. Default 500. */
  readonly timeLimitMs?: number;
  /** Budget for strings and arrays built by filters and ranges, in bytes. Default 10 MB. */
  readonly memoryLimit?: number;
}

/** Longest template source accepted, in characters. */
export const MAX_TEMPLATE_LENGTH = 256 * 1024;

const DEFAULT_MAX_OUTPUT = 1_000_000;
const DEFAULT_TIME_LIMIT_MS = 500;
const DEFAULT_MEMORY_LIMIT = 10_000_000;
const CACHE_SIZE = 256;

let engine: Liquid | undefined;

/**
 * The Liquid engine, made on first use: configuring it takes ~10 ms, which a command that renders
 * no template (a one-shot `tools list`) should not spend on its start.
 */
function liquid(): Liquid {
  if (engine !== undefined) return engine;
  // Liquid is data-only: no expression can call a function, and with `ownPropertyOnly` a lookup
  // never reaches a prototype (`constructor`, `__proto__`, `toString` all read as empty). The
  // tags that read other templates from disk are removed, so a template cannot name a file.
  const made = new Liquid({
    ownPropertyOnly: true,
    strictFilters: true,
    templates: {},
    parseLimit: MAX_TEMPLATE_LENGTH,
    renderLimit: DEFAULT_TIME_LIMIT_MS,
    memoryLimit: DEFAULT_MEMORY_LIMIT,
  });
  for (const tag of ['include', 'render', 'layout', 'block']) {
    Reflect.deleteProperty(made.tags, tag);
  }
  // The prompt vocabulary names these filters as most template languages do; Liquid spells them
  // upcase/downcase/strip.
  for (const [alias, builtin] of [
    ['upper', 'upcase'],
    ['lower', 'downcase'],
    ['trim', 'strip'],
  ] as const) {
    const filter = made.filters[builtin];
    if (filter !== undefined) made.registerFilter(alias, filter);
  }
  engine = made;
  return made;
}

/** A parsed template: Liquid, or Go's text/template language (the seed's prompt files). */
export type CompiledTemplate =
  | { readonly language: 'liquid'; readonly templates: Template[] }
  | { readonly language: 'go'; readonly nodes: readonly GoNode[] };

const cache = new Map<string, CompiledTemplate>();

// Liquid binds a non-object input here, so `{{ __root }}` still reaches it; Go's `{{ . }}` is
// the value itself.
const ROOT_VARIABLE = '__root';

/**
 * Parses a template once and caches it by source text. A template whose actions are written the
 * way only Go's are (`{{ .field }}`, `{{ if … }}`, `{{ json . }}`) is Go's text/template language,
 * rendered as Go renders it; any other is Liquid.
 *
 * @throws {ToolError} `invalid_prompt` when the source is too long, does not parse, mixes Liquid
 * tags into a Go template, or uses a Go form toolplane does not render (naming line and column).
 * @internal
 */
export function compileTemplate(source: string, where: string): CompiledTemplate {
  const cached = cache.get(source);
  if (cached !== undefined) {
    // Re-insert so the map's order is least-recently-used first.
    cache.delete(source);
    cache.set(source, cached);
    return cached;
  }
  if (source.length > MAX_TEMPLATE_LENGTH) {
    throw new ToolError(
      'invalid_prompt',
      `${where}: template is ${source.length} characters long (at most ${MAX_TEMPLATE_LENGTH})`,
    );
  }
  const compiled = looksLikeGoTemplate(source)
    ? compileGo(source, where)
    : compileLiquid(source, where);
  cache.set(source, compiled);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return compiled;
}

function compileGo(source: string, where: string): CompiledTemplate {
  const tag = /\{%-?\s*(\w+)/.exec(source);
  if (tag !== null) {
    const line = source.slice(0, tag.index).split('\n').length;
    throw new ToolError(
      'invalid_prompt',
      `${where}:${line}: the template uses Go's {{ .field }} forms and a Liquid {% ${tag[1] ?? ''} %} tag; write it in one language`,
    );
  }
  return { language: 'go', nodes: parseGoTemplate(source, where) };
}

function compileLiquid(source: string, where: string): CompiledTemplate {
  try {
    return { language: 'liquid', templates: liquid().parse(source) };
  } catch (error) {
    throw new ToolError('invalid_prompt', `${where}: template does not parse: ${describe(error)}`, {
      cause: error,
    });
  }
}

/**
 * The variables of its data a template reads at the top level (`{{ name }}` in Liquid, `{{ .name }}`
 * or `{{ $.name }}` in Go), in the order they first appear; those it assigns itself, and loop
 * variables, are not counted.
 *
 * @throws {ToolError} `invalid_prompt` as {@link compileTemplate}.
 * @internal
 */
export function templateVariables(source: string, where: string): string[] {
  const compiled = compileTemplate(source, where);
  if (compiled.language === 'go') return goTemplateFields(compiled.nodes);
  return liquid()
    .globalVariablesSync(compiled.templates)
    .filter((name) => name !== ROOT_VARIABLE);
}

/**
 * Renders a template against plain JSON data within the given {@link TemplateLimits}. An object's
 * fields are the template's variables; the value itself, object or not, is `{{ . }}`.
 *
 * @throws {ToolError} `invalid_prompt` when the template fails or exceeds a limit.
 * @internal
 */
export async function renderTemplate(
  source: string,
  data: unknown,
  options: { readonly where: string; readonly limits?: TemplateLimits | undefined },
): Promise<string> {
  const template = compileTemplate(source, options.where);
  const limits = options.limits ?? {};
  const maxOutput = limits.maxOutputLength ?? DEFAULT_MAX_OUTPUT;
  if (template.language === 'go') {
    return executeGoTemplate(template.nodes, data, options.where, {
      maxOutputLength: maxOutput,
      timeLimitMs: limits.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS,
    });
  }
  let output: unknown;
  try {
    const scope =
      typeof data === 'object' && data !== null && !Array.isArray(data)
        ? { ...(data as Record<string, unknown>), [ROOT_VARIABLE]: data }
        : { [ROOT_VARIABLE]: data };
    output = await liquid().render(template.templates, scope, {
      renderLimit: limits.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS,
      memoryLimit: limits.memoryLimit ?? DEFAULT_MEMORY_LIMIT,
    });
  } catch (error) {
    throw new ToolError(
      'invalid_prompt',
      `${options.where}: rendering failed: ${describe(error)}`,
      {
        cause: error,
      },
    );
  }
  const text = String(output);
  if (text.length > maxOutput) {
    throw new ToolError(
      'invalid_prompt',
      `${options.where}: rendered output is ${text.length} characters long (at most ${maxOutput}); shorten the template or its input`,
    );
  }
  return text;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
