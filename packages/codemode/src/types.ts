// The public shapes of code mode: its options, what a run and a search give back, and the
// CodeMode itself (made by createCodeMode in code-mode.ts).
import type { RunMeta } from '@toolplane/toolrun';
import type { CallStats } from './errors.js';
import type { ApiTool, LogEntry } from './protocol.js';

/** Which tools a program may call: those matching every criterion given. */
export interface CodeModeFilter {
  readonly namespaces?: readonly string[];
  readonly tags?: readonly string[];
  /** Canonical IDs (`namespace:name`). */
  readonly tools?: readonly string[];
}

/** Options of {@link createCodeMode}; every bound is per run. */
export interface CodeModeOptions {
  /** Wall-clock bound of one run, tool calls included (default 30 s, at most 2,147,483,647 ms). */
  readonly timeoutMs?: number;
  /** Heap bound of the sandbox (default 64 MiB). */
  readonly memoryLimitBytes?: number;
  /** Stack bound of the sandbox (default 512 KiB, at most 4 MiB): deep recursion ends here. */
  readonly maxStackBytes?: number;
  /** Tool calls one run may make (default 1,000). */
  readonly maxToolCalls?: number;
  /**
   * Calls of `search()` one run may make (default 100): each searches the catalogue on the
   * host's thread, so a loop of them would hold a shared gateway's CPU until `timeoutMs`.
   */
  readonly maxSearches?: number;
  /**
   * Tool calls one run may have in flight at once (default 8); more wait in the run, in the
   * order made, for one to end (their wait counts in `timeoutMs`).
   */
  readonly maxConcurrentCalls?: number;
  /** Bytes of `console` output one run may write (default 64 KiB). */
  readonly maxLogBytes?: number;
  /** Bytes of JSON the program's value may take (default 1 MiB). */
  readonly maxResultBytes?: number;
  /** Which tools the program may call (default: all of the source's). */
  readonly filter?: CodeModeFilter;
  /** Runs at once, each on its own worker thread (default 4); more wait for a free one. */
  readonly maxConcurrentRuns?: number;
}

/** Options of {@link CodeMode.run}. */
export interface CodeRunOptions {
  /** Stops the program and cancels its tool calls in flight. */
  readonly signal?: AbortSignal;
  /** `_meta` handed to every tool call (a W3C `traceparent` there parents the calls' spans). */
  readonly meta?: RunMeta;
  /** The client session the calls belong to (a toolkit's per-session servers answer on it). */
  readonly sessionKey?: string;
}

/** A tool {@link CodeMode.search} found. */
export interface FoundTool {
  readonly id: string;
  readonly title?: string;
  readonly description: string;
  readonly tags: readonly string[];
  /** Where the program calls it: `tools.<namespace>.<name>`. */
  readonly call: string;
}

/** What a run gives back: the program's value (JSON), its logs and its calls. */
export interface CodeRunResult {
  /** The program's return value, as JSON carries it (`undefined` when it returned none). */
  readonly value: unknown;
  readonly logs: readonly LogEntry[];
  readonly calls: CallStats;
}

/** Tools as a typed API inside a sandbox; made by {@link createCodeMode}. */
export interface CodeMode {
  /** TypeScript declarations of everything a program can use: `tools`, `search`, `console`. */
  declarations(): string;
  /**
   * The declaration of one tool the program may call, as `tools.<namespace>.<tool>` and the
   * types it names; `id` is its canonical ID, or the path a program calls it by
   * (`tools.<namespace>.<tool>`, as search answers it).
   *
   * @throws {ToolError} `not_found` when the filter lets no tool of that ID or path through.
   */
  describe(id: string): string;
  /** Where each tool the program may call sits: `tools[namespace][name]` calls `id`. */
  tools(): ApiTool[];
  /**
   * Finds tools the program may call, as `search(query)` does inside it: ID, title,
   * description, tags and `call`, the path to call it by (`tools.ns.name`).
   *
   * @throws {ToolError} `invalid_argument` for a bad limit or an option it does not take;
   * `cancelled` when `signal` aborts.
   */
  search(
    query: string,
    options?: { readonly limit?: number; readonly signal?: AbortSignal },
  ): Promise<FoundTool[]>;
  /**
   * Runs `program`, the body of an async function, in a fresh sandbox context (one sent whole
   * inside a Markdown code fence runs as the code inside).
   *
   * @throws {CodeModeError} `invalid_argument` for an option it does not take (a bound is set
   * per code mode), or a program that does not parse (with `line`, `column`);
   * `execution` for an uncaught throw (with `line` when known) or a value that is not JSON;
   * `timeout` past `timeoutMs`; `resource_exhausted` past the memory, stack, call, search, log or
   * result bound, or for a value nested deeper than 1,000 levels; `cancelled` when `signal` aborts or {@link CodeMode.close} ends the run;
   * `internal` when the sandbox itself fails, or for a run that waited for a worker (or began)
   * once code mode was closed.
   */
  run(program: string, options?: CodeRunOptions): Promise<CodeRunResult>;
  /**
   * Ends the sandbox worker threads: runs in flight are cancelled (their tool calls too), runs
   * still waiting for one fail with `internal`. Idempotent.
   */
  close(): Promise<void>;
}
