import { ToolError, type DefinedTool } from '@toolplane/toolkit';
import { optionKeys, refuseUnknownOptions } from '@toolplane/toolmodel';
import { HeavyPool, type PoolOptions } from './heavy/pool.js';
import { jsonFormatTool, jsonQueryTool } from './json.js';
import { textStatsTool } from './text.js';
import { dateAddTool, dateDiffTool, timeNowTool } from './time.js';

/** The names of the builtin tools, in the order {@link builtinTools} lists them. */
export const BUILTIN_NAMES = Object.freeze([
  'time_now',
  'date_add',
  'date_diff',
  'json_query',
  'json_format',
  'text_stats',
] as const);

/** One builtin tool's name. */
export type BuiltinName = (typeof BUILTIN_NAMES)[number];

/** Options of {@link builtinTools}. */
export interface BuiltinToolsOptions {
  /** Only these tools (default: all of them). */
  readonly only?: readonly BuiltinName[];
  /** How the heavy tools (`json_query`, `json_format`, `text_stats`) share their worker threads. */
  readonly pool?: PoolOptions;
}

const BUILTIN_TOOLS_KEYS = optionKeys<BuiltinToolsOptions>({ only: true, pool: true });

/**
 * The builtin tools, as `createToolkit({ tools })` takes them, with `close()` to end their worker
 * threads at once (idle threads end on their own after 30 s and never keep a process alive).
 */
export interface BuiltinToolList extends ReadonlyArray<DefinedTool> {
  /** Ends the worker threads; calls still running on them fail. */
  close(): Promise<void>;
}

/**
 * The builtin tools: `time_now`, `date_add`, `date_diff`, `json_query`, `json_format` and
 * `text_stats`, every one bounded in its input and its answer, the CPU-heavy ones on a worker
 * pool of their own that no one caller can take over (see {@link PoolOptions}).
 *
 * @throws {ToolError} `invalid_argument` for an option it does not take (here or in `pool`), an
 * unknown name in `only` or a bad pool setting.
 *
 * @example
 * const toolkit = createToolkit({ tools: builtinTools({ only: ['time_now', 'date_add'] }) });
 */
export function builtinTools(options: BuiltinToolsOptions = {}): BuiltinToolList {
  refuseUnknownOptions(options, BUILTIN_TOOLS_KEYS, 'builtinTools');
  const only = options.only ?? BUILTIN_NAMES;
  for (const name of only) {
    if (!(BUILTIN_NAMES as readonly string[]).includes(name)) {
      throw new ToolError(
        'invalid_argument',
        `builtinTools({ only }): no builtin is called ${JSON.stringify(name)} (there are ${BUILTIN_NAMES.join(', ')})`,
      );
    }
  }
  const pool = new HeavyPool(options.pool);
  const make: Record<BuiltinName, () => DefinedTool> = {
    time_now: timeNowTool,
    date_add: dateAddTool,
    date_diff: dateDiffTool,
    json_query: () => jsonQueryTool(pool),
    json_format: () => jsonFormatTool(pool),
    text_stats: () => textStatsTool(pool),
  };
  const tools = BUILTIN_NAMES.filter((name) => only.includes(name)).map((name) => make[name]());
  return Object.assign(tools, { close: () => pool.close() });
}
