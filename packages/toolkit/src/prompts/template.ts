import { Liquid, type Template } from 'liquidjs';
import { ToolError } from '@toolplane/toolmodel';

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

// Liquid is data-only: no expression can call a function, and with `ownPropertyOnly` a lookup
// never reaches a prototype (`constructor`, `__proto__`, `toString` all read as empty). The tags
// that read other templates from disk are removed, so a template cannot name a file.
const liquid = new Liquid({
  ownPropertyOnly: true,
  strictFilters: true,
  templates: {},
  parseLimit: MAX_TEMPLATE_LENGTH,
  renderLimit: DEFAULT_TIME_LIMIT_MS,
  memoryLimit: DEFAULT_MEMORY_LIMIT,
});
for (const tag of ['include', 'render', 'layout', 'block']) {
  Reflect.deleteProperty(liquid.tags, tag);
}
// The prompt vocabulary names these filters as most template languages do; Liquid spells them
// upcase/downcase/strip.
for (const [alias, builtin] of [
  ['upper', 'upcase'],
  ['lower', 'downcase'],
  ['trim', 'strip'],
] as const) {
  const filter = liquid.filters[builtin];
  if (filter !== undefined) liquid.registerFilter(alias, filter);
}

const cache = new Map<string, Template[]>();

/** The variable a template's root value (`{{ . }}` in the seed's Go-template form) is bound to. */
export const ROOT_VARIABLE = '__root';

// `{{ .field | upper }}`: an output whose expression starts with a dot, Go's text/template form.
const GO_OUTPUT = /\{\{(-?)\s*(\.[^{}]*?)\s*(-?)\}\}/g;
// Go's pipeline stages that have a Liquid filter of the same meaning; the argument, if any, comes
// first in Go (`default "none"`, `join ", "`) and after a colon in Liquid.
const GO_FILTERS = new Set(['json', 'upper', 'lower', 'trim', 'default', 'join']);

/**
 * `source` with the seed's Go-template outputs — `{{ . }}`, `{{ .field.sub }}`, and pipelines into
 * `json`, `default`, `join`, `upper`, `lower`, `trim` — written as the Liquid they mean, the rest
 * untouched. The result is ordinary Liquid: the same sandbox and limits apply. A stage that is not
 * one of those is left as written, so Liquid refuses it with its own message.
 */
export function fromGoTemplate(source: string): string {
  return source.replace(GO_OUTPUT, (whole, open: string, expression: string, close: string) => {
    const [head = '', ...stages] = splitPipeline(expression);
    const path = /^\.((?:[A-Za-z_][\w-]*)(?:\.[A-Za-z_][\w-]*)*)?$/.exec(head.trim());
    if (path === null) return whole;
    const variable = path[1] === undefined ? ROOT_VARIABLE : `${ROOT_VARIABLE}.${path[1]}`;
    const filters: string[] = [];
    for (const stage of stages) {
      const match = /^([a-z]+)(?:\s+(.+))?$/.exec(stage.trim());
      if (match === null || !GO_FILTERS.has(match[1] ?? '')) return whole;
      filters.push(match[2] === undefined ? ` | ${match[1]}` : ` | ${match[1]}: ${match[2]}`);
    }
    return `{{${open} ${variable}${filters.join('')} ${close}}}`;
  });
}

/** A pipeline's stages, split at `|` outside quotes. */
function splitPipeline(expression: string): string[] {
  const stages: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (const char of expression) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'" || char === '`') {
      quote = char;
    } else if (char === '|') {
      stages.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  stages.push(current);
  return stages;
}

/**
 * Parses a template once and caches it by source text.
 *
 * @throws {ToolError} `invalid_prompt` when the source is too long or is not valid Liquid.
 * @internal
 */
export function compileTemplate(source: string, where: string): Template[] {
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
  let parsed: Template[];
  try {
    parsed = liquid.parse(fromGoTemplate(source));
  } catch (error) {
    throw new ToolError('invalid_prompt', `${where}: template does not parse: ${describe(error)}`, {
      cause: error,
    });
  }
  cache.set(source, parsed);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return parsed;
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
  let output: unknown;
  try {
    const scope =
      typeof data === 'object' && data !== null && !Array.isArray(data)
        ? { ...(data as Record<string, unknown>), [ROOT_VARIABLE]: data }
        : { [ROOT_VARIABLE]: data };
    output = await liquid.render(template, scope, {
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
