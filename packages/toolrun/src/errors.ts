import {
  ToolError,
  type ToolBackend,
  type ToolErrorCode,
  type ToolOperation,
} from '@toolplane/toolmodel';
import type { RunResult } from './types.js';

/** Codes an execution step may raise itself; any other failure there becomes `execution`. */
const EXECUTION_CODES: ReadonlySet<ToolErrorCode> = new Set<ToolErrorCode>([
  'execution',
  // a tool refusing an argument's value that its schema could not rule out ("garbage" as a
  // date): the caller's mistake to fix, not the tool's failure
  'invalid_argument',
  'cancelled',
  'timeout',
  'rate_limited',
  // a tool refusing work past one of its bounds (an answer's size, a sandbox's memory)
  'resource_exhausted',
  'circuit_open',
  'stream_not_supported',
]);

/** True for codes an execution step (executor or middleware) may raise as they are. */
export function isExecutionCode(code: ToolErrorCode): boolean {
  return EXECUTION_CODES.has(code);
}

/** Where in the pipeline an error happened. */
export interface ErrorContext {
  readonly toolId: string;
  readonly backend: ToolBackend | undefined;
  readonly op: ToolOperation;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    const json = JSON.stringify(error) as string | undefined;
    return json ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * The `cancelled` error for an aborted signal. A `ToolError` reason (as set by {@link timeout})
 * is returned as it is, so the code that aborted decides what the caller sees.
 */
export function abortError(signal: AbortSignal, context?: Partial<ErrorContext>): ToolError {
  const reason: unknown = signal.reason;
  if (ToolError.isInstance(reason)) return reason;
  const subject = context?.toolId === undefined ? 'the call' : `tool "${context.toolId}"`;
  return new ToolError('cancelled', `${subject} was cancelled`, {
    cause: reason,
    toolId: context?.toolId,
    backend: context?.backend,
    op: context?.op,
  });
}

/**
 * Turns anything thrown during one pipeline stage into a `ToolError` carrying the tool ID,
 * backend and operation. A `ToolError` that already names this tool and stage is returned as
 * it is; during `execute`, the codes an execution step may raise are kept and everything else
 * becomes `execution`, with the original as `cause`.
 */
export function toToolError(
  error: unknown,
  fallback: ToolErrorCode,
  context: ErrorContext,
): ToolError {
  if (ToolError.isInstance(error)) {
    if (error.toolId === context.toolId && error.op !== undefined) return error;
    const code = context.op === 'execute' && !isExecutionCode(error.code) ? fallback : error.code;
    return new ToolError(code, error.message, {
      cause: error,
      toolId: context.toolId,
      backend: context.backend,
      op: context.op,
      errors: error.errors,
    });
  }
  return new ToolError(fallback, `tool "${context.toolId}" failed: ${describe(error)}`, {
    cause: error,
    toolId: context.toolId,
    backend: context.backend,
    op: context.op,
  });
}

const chainMarker = Symbol.for('@toolplane/ChainError');

/**
 * The error {@link Runner.runChain} throws: the failing step's `ToolError` (same code, tool,
 * backend and operation; the original as `cause`), plus where the chain stopped.
 */
export class ChainError extends ToolError {
  override name = 'ChainError';
  /**
   * Index (from 0) of the step that failed (or, for `cancelled`, the step that did not start);
   * the message counts from 1.
   */
  readonly stepIndex: number;
  /** Results of the steps that completed before it. */
  readonly steps: readonly RunResult[];

  constructor(error: ToolError, stepIndex: number, steps: readonly RunResult[]) {
    // Counted from 1 in the message, as people count steps; `stepIndex` stays an index.
    super(error.code, `chain step ${String(stepIndex + 1)} failed: ${error.message}`, {
      cause: error,
      toolId: error.toolId,
      backend: error.backend,
      op: error.op,
      errors: error.errors,
    });
    this.stepIndex = stepIndex;
    this.steps = steps;
  }

  /** True for any `ChainError`, including one created by another copy of this package. */
  static override isInstance(value: unknown): value is ChainError {
    return (
      ToolError.isInstance(value) &&
      (value as unknown as Record<symbol, unknown>)[chainMarker] === true
    );
  }
}

Object.defineProperty(ChainError.prototype, chainMarker, { value: true });
