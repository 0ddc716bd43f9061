import type { BackendSelector, ToolIndex } from '@toolplane/toolindex';
import type { SchemaValidator, Tool, ToolBackend } from '@toolplane/toolmodel';
import type { LocalHandlers } from '../local-registry.js';
import type { McpExecutor } from '../mcp-executor.js';
import type {
  Middleware,
  ProgressEvent,
  ProviderExecutor,
  RunOptions,
  RunResult,
  RunStreamOptions,
  StreamEvent,
} from '../types.js';

/** A value, or a promise of one. */
export type MaybePromise<T> = T | Promise<T>;

/** Options of {@link createRunner}. */
export interface RunnerOptions {
  /** Where tools and their backends are looked up first. */
  readonly index?: Pick<ToolIndex, 'getTool'>;
  /** Finds a tool the index does not have (or when there is no index). */
  readonly resolveTool?: (id: string) => MaybePromise<Tool | undefined>;
  /** Finds the backends of a tool found by `resolveTool`. */
  readonly resolveBackends?: (id: string) => MaybePromise<readonly ToolBackend[] | undefined>;
  /**
   * Picks the backend to run on. Default: the index's choice for indexed tools, toolindex's
   * `defaultBackendSelector` (local > provider > mcp) for the others.
   */
  readonly selectBackend?: BackendSelector;
  /** Validates arguments and results; default toolmodel's `createValidator()`. */
  readonly validator?: SchemaValidator;
  /** Which validations run (both by default). */
  readonly validate?: { readonly input?: boolean; readonly output?: boolean };
  /** Handlers of `local` backends: a {@link createLocalRegistry} registry, or anything with a `get`. */
  readonly local?: LocalHandlers;
  /** Runs tools on `mcp` backends; see {@link createMcpExecutor}. */
  readonly mcp?: McpExecutor;
  /** Runs tools on `provider` backends. */
  readonly provider?: ProviderExecutor;
  /** Wraps every execution, first = outermost; composed once, here. */
  readonly middleware?: readonly Middleware[];
}

/** One step of {@link Runner.runChain}. */
export interface ChainStep {
  readonly toolId: string;
  readonly args?: Record<string, unknown>;
  /** Pass the previous step's `structured` result as `args.previous`. */
  readonly usePrevious?: boolean;
}

/** A progress report of {@link Runner.runChain}: one per completed step. */
export interface ChainProgressEvent extends ProgressEvent {
  /** The step that just completed. */
  readonly stepIndex: number;
  readonly toolId: string;
}

/** Options of {@link Runner.runChain}. */
export interface RunChainOptions {
  /** Checked before every step, and passed to each. */
  readonly signal?: AbortSignal;
  /** Receives one report per completed step: `progress` completed out of `total`. */
  readonly onProgress?: (event: ChainProgressEvent) => void;
}

/** The outcome of a successful chain. */
export interface ChainResult {
  /** The last step's result. */
  readonly result: RunResult;
  /** Every step's result, in order. */
  readonly steps: readonly RunResult[];
}

/** Runs tools by canonical ID; see {@link createRunner}. */
export interface Runner {
  /**
   * Runs a tool: resolve, select a backend, validate the input, execute, normalise, validate
   * the output. `args` is never mutated; `undefined` is `{}`.
   *
   * @throws {ToolError} `invalid_tool_id`, `tool_not_found`, `no_backends`, `validation` (with
   * `errors`), `execution`, `output_validation`, `cancelled`, and what middleware adds
   * (`timeout`, `rate_limited`, `circuit_open`); each with `toolId`, `backend` and `op`.
   * `invalid_argument` for options that are not an object, a `signal` that is not an
   * `AbortSignal` or an `onProgress` that is not a function, before anything runs.
   */
  run(toolId: string, args?: unknown, options?: RunOptions): Promise<RunResult>;
  /**
   * Runs a tool as a stream of `progress` and `chunk` events ending in one `done` or `error`
   * event; failures are `error` events, never throws. Breaking out of the iteration cancels
   * the call. Local handlers may be async generators (each yield is a chunk), MCP tools stream
   * their progress; a provider without `callToolStream` yields `stream_not_supported`.
   */
  runStream(toolId: string, args?: unknown, options?: RunStreamOptions): AsyncIterable<StreamEvent>;
  /**
   * Runs steps one after another, stopping at the first failure.
   *
   * @throws {ChainError} the failing step's code, with `stepIndex` and the completed `steps`;
   * `cancelled` when the signal aborts between steps.
   * @throws {ToolError} `invalid_argument`, before any step runs, for no steps, a step without
   * a string `toolId`, or options as {@link Runner.run} refuses them.
   */
  runChain(steps: readonly ChainStep[], options?: RunChainOptions): Promise<ChainResult>;
}
