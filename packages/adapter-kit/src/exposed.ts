import type { ToolEntry } from '@toolplane/toolindex';
import { didYouMean, ToolError } from '@toolplane/toolmodel';
import { codeModeLocalTools } from './code-mode-local.js';
import type { CodeModeRunner } from './code-mode.js';
import { nameTools, type NameToolsOptions } from './names.js';
import { convertSchema, type ConvertedSchema } from './schema-conversion.js';
import type { SchemaTarget } from './schema-rules.js';
import { searchModeTools } from './search-mode.js';
import type { ToolSource } from './source.js';
import type { LocalRun, ResolvedCall } from './turn.js';

/** Options every provider's `to…Tools` takes: which tools, and how they are named. */
export interface ExposeOptions extends NameToolsOptions {
  /**
   * `'tools'` (default): one tool per toolplane tool. `'search'`: only `search_tools`,
   * `describe_tool` and `call_tool`, so a model finds what it needs in a catalogue too big to
   * list in every request. `'code'`: only `search_tools`, `describe_tool` and `run_code`, over
   * {@link ExposeOptions.codeMode}, so a model writes one program that calls many tools.
   */
  readonly mode?: 'tools' | 'search' | 'code';
  /**
   * What `mode: 'code'` runs programs on: `createCodeMode(source, { filter, timeoutMs })` of
   * @toolplane/codemode. Its own `filter` decides which tools a program may call (this object's
   * `include` and `exclude` do not apply); you close it when you are done with it.
   */
  readonly codeMode?: CodeModeRunner;
  readonly signal?: AbortSignal;
}

/** One tool as a provider will see it: its exposed name, description and converted schema. */
export interface ExposedTool {
  readonly name: string;
  /** The tool's canonical ID; in search mode, the search tool's own name. */
  readonly id: string;
  /** The tool's index entry; absent for search mode's tools. */
  readonly entry?: ToolEntry;
  readonly description?: string;
  readonly schema: ConvertedSchema;
}

/** The tools exposed to one provider, and the way back from a name the model calls. */
export interface ExposedTools {
  readonly tools: readonly ExposedTool[];
  readonly resolve: (name: string) => ResolvedCall | undefined;
  /**
   * What a model that called `name`, which names none of these tools, is told: that no tool is
   * so named, and the name it likely meant (the same in another case, a slip of a separator) or,
   * in search and code mode, which tools there are.
   */
  readonly notFound?: (name: string) => string;
}

/** {@link ExposedTools.notFound} over `names`; `listed` says them all when nothing is close. */
function notFoundOf(names: readonly string[], listed: boolean): (name: string) => string {
  return (name) => {
    const said = `no tool is named ${JSON.stringify(name)}`;
    const near = didYouMean(name, names);
    if (near !== undefined) return `${said}; did you mean ${JSON.stringify(near)}?`;
    return listed ? `${said}; the tools here are ${names.join(', ')}` : said;
  };
}

/**
 * Lists the source's tools through the filter, names them with {@link nameTools}
 * (provider-legal, stable, collision-free, reversible) and converts each input schema for
 * `target`, so every provider package shares one path from tools to definitions.
 *
 * @throws {ToolError} `cancelled` when `signal` is aborted; `conflict` when a provider's own name
 * rule (Gemini's) makes two names one.
 */
export function exposeTools(
  source: ToolSource,
  target: SchemaTarget,
  options: ExposeOptions = {},
): ExposedTools {
  if (options.signal?.aborted === true) {
    throw new ToolError('cancelled', 'listing tools was cancelled', {
      cause: options.signal.reason,
    });
  }
  if (options.mode === 'search') return exposeLocal(searchModeTools(source, options), target);
  if (options.mode === 'code') return exposeLocal(codeModeLocalTools(options.codeMode), target);
  const tools: ExposedTool[] = [];
  const resolved = new Map<string, ResolvedCall>();
  for (const { name: tableName, entry } of nameTools(source.index, options)) {
    // Gemini wants a letter or underscore first; the table's names may start with a digit or `-`.
    const name =
      target === 'gemini' && !/^[A-Za-z_]/.test(tableName)
        ? `_${tableName.slice(0, 63)}`
        : tableName;
    if (resolved.has(name)) {
      throw new ToolError(
        'conflict',
        `two tools would both be named ${name} for ${target}; rename one with naming.separator`,
      );
    }
    const description = entry.tool.description ?? entry.tool.title;
    const tool: ExposedTool = {
      name,
      id: entry.id,
      entry,
      ...(description === undefined ? {} : { description }),
      schema: convertSchema(entry.tool.inputSchema, target),
    };
    tools.push(tool);
    // Worked out once per tool, not on every call.
    resolved.set(name, { id: tool.id, restore: tool.schema.restore });
  }
  return {
    tools,
    resolve: (name) => resolved.get(name),
    notFound: notFoundOf([...resolved.keys()], false),
  };
}

/** Tools that run in the adapter itself (search and code mode's), exposed under their own names. */
function exposeLocal(
  local: readonly { name: string; description: string; inputSchema: unknown; run: LocalRun }[],
  target: SchemaTarget,
): ExposedTools {
  const tools = local.map((tool) => ({
    name: tool.name,
    id: tool.name,
    description: tool.description,
    schema: convertSchema(tool.inputSchema, target),
    run: tool.run,
  }));
  const resolved = new Map<string, ResolvedCall>(
    tools.map((tool) => [tool.name, { id: tool.id, restore: tool.schema.restore, run: tool.run }]),
  );
  return {
    tools,
    resolve: (name) => resolved.get(name),
    // A model calling a catalogue tool by name in search mode learns how to reach it.
    notFound: notFoundOf(
      tools.map((tool) => tool.name),
      true,
    ),
  };
}

const bindings = new WeakMap<object, ExposedTools>();

/**
 * Remembers which {@link ExposedTools} a provider's tool list was made from: the list, and each
 * tool in it, so that a list the caller builds from it (`[...tools, myOwnTool]`) is still known.
 */
export function bindExposed<T extends object>(list: T, exposed: ExposedTools): T {
  bindings.set(list, exposed);
  if (Array.isArray(list)) {
    for (const tool of list as unknown[]) {
      if (typeof tool === 'object' && tool !== null) bindings.set(tool, exposed);
    }
  }
  return list;
}

/**
 * The {@link ExposedTools} a provider's tool list was made from, if it came from this kit: the
 * list's own, else that of the first tool in it that came from a list of this kit (a new array
 * with the tools of one, beside the caller's own).
 */
export function exposedOf(list: object | undefined): ExposedTools | undefined {
  if (list === undefined) return undefined;
  const own = bindings.get(list);
  if (own !== undefined || !Array.isArray(list)) return own;
  for (const tool of list as unknown[]) {
    const found = typeof tool === 'object' && tool !== null ? bindings.get(tool) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}
