import { ToolError, type ToolErrorCode } from '@toolplane/toolmodel';
import type { Runner } from './runner.js';

/** Who is asking, for tracing and policy; passed to the tool as request metadata. */
export interface ToolInvocationContext {
  readonly traceId?: string;
  readonly userId?: string;
  readonly tags?: readonly string[];
}

/** One MPLP tool invocation. */
export interface ToolInvocation {
  /** The tool: a canonical ID for {@link createToolExecutor}, a handler name for {@link createInMemoryToolExecutor}. */
  readonly toolName: string;
  readonly payload?: unknown;
  readonly context?: ToolInvocationContext;
  /** Cancels the invocation. */
  readonly signal?: AbortSignal;
}

/** The outcome of a {@link ToolInvocation}: always resolved, never rejected. */
export interface ToolInvocationResult {
  readonly toolName: string;
  readonly success: boolean;
  /** The structured result, on success. */
  readonly output?: unknown;
  /** What went wrong, on failure. */
  readonly errorMessage?: string;
  /** The failure's {@link ToolErrorCode}, on failure. */
  readonly errorCode?: ToolErrorCode;
  readonly metadata: {
    /** Milliseconds the invocation took. */
    readonly duration: number;
    readonly cost?: number;
  };
}

/** The MPLP `ToolExecutor` contract: invoke by name, get a result object, never an exception. */
export interface ToolExecutor {
  invoke(invocation: ToolInvocation): Promise<ToolInvocationResult>;
}

function failure(
  toolName: string,
  error: unknown,
  started: number,
  fallback: ToolErrorCode,
): ToolInvocationResult {
  const isToolError = ToolError.isInstance(error);
  return {
    toolName,
    success: false,
    errorMessage: error instanceof Error ? error.message : String(error),
    errorCode: isToolError ? error.code : fallback,
    metadata: { duration: performance.now() - started },
  };
}

function metaOf(context: ToolInvocationContext | undefined): Record<string, unknown> | undefined {
  if (context === undefined) return undefined;
  const meta: Record<string, unknown> = {};
  if (context.traceId !== undefined) meta.traceId = context.traceId;
  if (context.userId !== undefined) meta.userId = context.userId;
  if (context.tags !== undefined) meta.tags = [...context.tags];
  return meta;
}

/**
 * Adapts a {@link Runner} to the MPLP `ToolExecutor` contract: `toolName` is the canonical tool
 * ID, `payload` the arguments, `context` travels as request metadata, and every failure becomes
 * `{ success: false, errorCode, errorMessage }`.
 */
export function createToolExecutor(runner: Runner): ToolExecutor {
  return {
    async invoke({ toolName, payload, context, signal }) {
      const started = performance.now();
      try {
        const result = await runner.run(toolName, payload, { signal, meta: metaOf(context) });
        return {
          toolName,
          success: true,
          output: result.structured,
          metadata: { duration: performance.now() - started },
        };
      } catch (error) {
        return failure(toolName, error, started, 'execution');
      }
    },
  };
}

/** A plain async tool for {@link createInMemoryToolExecutor}. */
export type InMemoryTool = (
  payload: unknown,
  context: ToolInvocationContext | undefined,
) => unknown;

/**
 * An MPLP `ToolExecutor` over a plain record of functions, for tests and small agents. Only
 * the record's own function properties are tools: `invoke({ toolName: 'toString' })` is
 * `tool_not_found`, never a call.
 */
export function createInMemoryToolExecutor(
  handlers: Readonly<Record<string, InMemoryTool>>,
): ToolExecutor {
  const tools = new Map<string, InMemoryTool>();
  for (const [name, handler] of Object.entries(handlers)) {
    if (typeof handler === 'function') tools.set(name, handler);
  }
  return {
    async invoke({ toolName, payload, context, signal }) {
      const started = performance.now();
      const handler = tools.get(toolName);
      if (handler === undefined) {
        const known = [...tools.keys()].join(', ') || 'none';
        return failure(
          toolName,
          new ToolError(
            'tool_not_found',
            `tool "${toolName}" is not registered (registered: ${known})`,
          ),
          started,
          'tool_not_found',
        );
      }
      if (signal?.aborted === true) {
        return failure(
          toolName,
          new ToolError('cancelled', `invocation of "${toolName}" was cancelled`, {
            cause: signal.reason,
          }),
          started,
          'cancelled',
        );
      }
      try {
        const output = await handler(payload, context);
        return {
          toolName,
          success: true,
          output,
          metadata: { duration: performance.now() - started },
        };
      } catch (error) {
        return failure(toolName, error, started, 'execution');
      }
    },
  };
}
