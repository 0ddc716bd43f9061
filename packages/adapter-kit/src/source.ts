import { ToolError } from '@toolplane/toolmodel';
import { maxOutputCharsOf } from './budget.js';
import { unsafeIntegerRefusal } from './unsafe-integers.js';
import type { ToolEntry, ToolIndex } from '@toolplane/toolindex';
import type { ProgressListener, Runner, RunMeta, RunResult } from '@toolplane/toolrun';

/**
 * Throws `invalid_argument` unless `source` looks like a {@link ToolSource} (a toolkit, or
 * `{ runner, index }`), so a wrong one fails where it is handed over, not deep inside.
 */
export function checkSource(source: unknown, method: string): asserts source is ToolSource {
  const given = source as Partial<ToolSource> | null;
  if (
    typeof source !== 'object' ||
    given === null ||
    typeof given.index?.listTools !== 'function' ||
    (typeof given.runner?.run !== 'function' && typeof given.callTool !== 'function')
  ) {
    throw new ToolError(
      'invalid_argument',
      `${method} needs a toolkit (createToolkit(...)) or { runner, index }, got ${source === null ? 'null' : typeof source}`,
    );
  }
}

/**
 * Checks what a framework's `to…Tools(source, options)` was handed: `source` as
 * {@link checkSource} does (not needed in code mode, whose tools call the code mode's own),
 * `options` an object, and its `maxOutputChars` as {@link maxOutputCharsOf} does.
 *
 * @throws {ToolError} `invalid_argument`.
 */
export function checkArguments(source: unknown, options: unknown, method: string): void {
  if (typeof options !== 'object' || options === null) {
    throw new ToolError('invalid_argument', `${method} options must be an object`);
  }
  const { mode, maxOutputChars } = options as { mode?: unknown; maxOutputChars?: unknown };
  if (mode !== 'code') checkSource(source, method);
  maxOutputCharsOf(maxOutputChars);
}

/** What a call through a {@link ToolSource} takes. */
export interface SourceCallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: ProgressListener;
  readonly meta?: RunMeta;
}

/**
 * Where the adapter finds tools and runs them: a toolkit (`createToolkit(...)`) as it is, or a
 * runner with its index (`{ runner, index }`). A toolkit's own `callTool` is used when present,
 * so the calls it makes are tied to their upstream sampling and elicitation requests; otherwise
 * calls go to `runner.run`. Either way the runner validates the arguments, once.
 */
export interface ToolSource {
  readonly index: Pick<ToolIndex, 'listTools' | 'search' | 'hasTool' | 'getTool'>;
  readonly runner: Pick<Runner, 'run'>;
  callTool?(
    id: string,
    input?: Record<string, unknown>,
    options?: SourceCallOptions,
  ): Promise<RunResult>;
}

/** Which tools to expose: a tool must match every `include` rule given and no `exclude` rule. */
export interface ToolFilter {
  readonly include?: ToolSelector;
  readonly exclude?: ToolSelector;
}

/** Matches a tool by namespace, by any of its tags, or by canonical ID (`ns:name`). */
export interface ToolSelector {
  readonly namespaces?: readonly string[];
  readonly tags?: readonly string[];
  readonly ids?: readonly string[];
}

/** The selector's criteria a tool meets: all of them (`every`) or at least one (`some`). */
function meets(entry: ToolEntry, selector: ToolSelector, mode: 'every' | 'some'): boolean {
  const checks: boolean[] = [];
  if (selector.namespaces !== undefined) {
    checks.push(selector.namespaces.includes(entry.tool.namespace ?? ''));
  }
  if (selector.tags !== undefined) {
    const tags = entry.tool.tags ?? [];
    checks.push(selector.tags.some((tag) => tags.includes(tag)));
  }
  if (selector.ids !== undefined) checks.push(selector.ids.includes(entry.id));
  return mode === 'every' ? checks.every(Boolean) : checks.some(Boolean);
}

/** Whether `filter` lets `entry` through. */
export function passes(entry: ToolEntry, filter: ToolFilter): boolean {
  if (filter.include !== undefined && !meets(entry, filter.include, 'every')) return false;
  return filter.exclude === undefined || !meets(entry, filter.exclude, 'some');
}

// The index's largest page.
const PAGE = 100;

/** Every tool of the index that `filter` lets through, in ID order. */
export function listAll(index: ToolSource['index'], filter: ToolFilter): ToolEntry[] {
  const entries: ToolEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = index.listTools(cursor === undefined ? { limit: PAGE } : { limit: PAGE, cursor });
    for (const entry of page.entries) if (passes(entry, filter)) entries.push(entry);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return entries;
}

/**
 * Runs a tool through the source: its `callTool` when it has one, its runner otherwise.
 *
 * Rejects with `invalid_argument`, running nothing, for an integer past 2^53 - 1 where the tool's
 * schema asks for an integer (see unsafe-integers.ts): every adapter call comes through here, and
 * most come with arguments an SDK parsed, which may have rounded it.
 */
export function callThrough(
  source: ToolSource,
  id: string,
  input: Record<string, unknown>,
  options: SourceCallOptions,
): Promise<RunResult> {
  const refused = unsafeIntegerRefusal(id, input, schemaOf(source, id));
  if (refused !== undefined) return Promise.reject(refused);
  return source.callTool === undefined
    ? source.runner.run(id, input, options)
    : source.callTool(id, input, options);
}

/** The tool's input schema; `undefined` for a tool the index has not (the run says so). */
function schemaOf(source: ToolSource, id: string): unknown {
  try {
    return source.index.getTool(id).tool.inputSchema;
  } catch {
    return undefined;
  }
}
