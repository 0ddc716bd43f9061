import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Tool, ToolBackend, ToolError } from '@toolplane/toolmodel';
import type { ApprovalDecision } from './approval/decision.js';

/** One progress report: `progress` rises; `total` when known; `message` for people. */
export interface ProgressEvent {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Receives {@link ProgressEvent}s in the order they happened. */
export type ProgressListener = (event: ProgressEvent) => void;

/** Free-form request metadata, passed to local handlers and sent to MCP servers as `_meta`. */
export type RunMeta = Record<string, unknown>;

/** Options of {@link Runner.run}. */
export interface RunOptions {
  /** Cancels the call; an already-aborted signal fails with `cancelled` before anything runs. */
  readonly signal?: AbortSignal;
  /** Receives progress reports from the backend (for MCP: the server's notifications). */
  readonly onProgress?: ProgressListener;
  /** Request metadata for the backend. */
  readonly meta?: RunMeta;
  /**
   * Marks this call safe to repeat, so {@link retry} may retry it even when the tool's
   * annotations say neither read-only nor idempotent.
   */
  readonly idempotent?: boolean;
}

/** Options of {@link Runner.runStream}. */
export interface RunStreamOptions {
  /** Cancels the call; breaking out of the iteration cancels it too. */
  readonly signal?: AbortSignal;
  /** Request metadata for the backend. */
  readonly meta?: RunMeta;
  /** See {@link RunOptions.idempotent}. */
  readonly idempotent?: boolean;
}

/** The outcome of one successful tool call. */
export interface RunResult {
  /** The canonical ID the tool was run by. */
  readonly toolId: string;
  readonly tool: Tool;
  /** The backend that ran the call. */
  readonly backend: ToolBackend;
  /**
   * The normalised result: a local or provider handler's value as is; for an MCP result, the
   * `structuredContent`, else a single text block parsed as JSON when it is JSON (the string
   * otherwise), else an array of the blocks (text as above, other blocks kept as content).
   */
  readonly structured: unknown;
  /**
   * The raw MCP result: for MCP backends, and for local or provider handlers that answered with
   * an MCP result built with `mcpToolResult`.
   */
  readonly mcpResult?: CallToolResult;
}

/**
 * One event of {@link Runner.runStream}, discriminated on `type` and stamped with the tool ID.
 * A stream ends with exactly one `done` or `error` event.
 */
export type StreamEvent =
  | ({ readonly type: 'progress'; readonly toolId: string } & ProgressEvent)
  | { readonly type: 'chunk'; readonly toolId: string; readonly data: unknown }
  | { readonly type: 'done'; readonly toolId: string; readonly result: RunResult }
  | { readonly type: 'error'; readonly toolId: string; readonly error: ToolError };

/**
 * One tool call as middleware and executors see it, after resolution, backend selection and
 * input validation.
 */
export interface ToolCall {
  readonly toolId: string;
  readonly tool: Tool;
  readonly backend: ToolBackend;
  /** The validated arguments (never `undefined`; never mutated by the runner). */
  readonly args: unknown;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ProgressListener | undefined;
  /** Set when the call streams: receives each chunk the backend produces. */
  readonly onChunk: ((chunk: unknown) => void) | undefined;
  readonly meta: RunMeta | undefined;
  /** True when the caller marked the call safe to repeat ({@link RunOptions.idempotent}). */
  readonly idempotent: boolean;
  /**
   * Hears this call's approval steps (`asked`, then `granted` or `refused`) from an
   * {@link approval} middleware further in: set by a middleware outside it that shows calls
   * (a live log says the call waits for a person). What it throws is ignored.
   */
  readonly onApproval?: ((decision: ApprovalDecision) => void) | undefined;
}

/**
 * Runs a {@link ToolCall} and resolves to the backend's raw result (for MCP: the
 * `CallToolResult`); normalisation happens after it.
 */
export type Invoke = (call: ToolCall) => Promise<unknown>;

/**
 * Wraps the execution step: receives the next {@link Invoke} and returns one that adds
 * behaviour around it. Middleware is composed once, when the runner is created; the first in
 * the list is the outermost.
 */
export type Middleware = (next: Invoke) => Invoke;

/**
 * Calls tools hosted by an external provider (an API, a plugin host).
 *
 * Implementations throw `ToolError`s with execution-stage codes (`execution`, `timeout`,
 * `cancelled`, ...) or any error, which the runner wraps as `execution`.
 */
export interface ProviderExecutor {
  /** Calls `toolId` at `providerId` and resolves to its result. */
  callTool(
    providerId: string,
    toolId: string,
    args: unknown,
    options: ProviderCallOptions,
  ): Promise<unknown>;
  /**
   * Streams a call: each yielded value is a chunk; the generator's return value, when not
   * `undefined`, is the result (otherwise the chunks are). Without it, streaming a provider
   * tool fails with `stream_not_supported`.
   */
  callToolStream?(
    providerId: string,
    toolId: string,
    args: unknown,
    options: ProviderCallOptions,
  ): AsyncIterable<unknown>;
}

/** Options passed to a {@link ProviderExecutor}. */
export interface ProviderCallOptions {
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ProgressListener | undefined;
  readonly meta: RunMeta | undefined;
}
