import {
  optionKeys,
  refuseUnknownOptions,
  ToolError,
  type ToolBackend,
  type ToolErrorCode,
} from '@toolplane/toolmodel';
import type { Middleware, ToolCall } from '../types.js';

/** One audited call. */
export interface AuditRecord {
  readonly toolId: string;
  readonly backend: ToolBackend;
  /** When the call started, in epoch milliseconds. */
  readonly startedAt: number;
  /** How long it took, in milliseconds. */
  readonly duration: number;
  readonly outcome: 'success' | 'error';
  /** The failure's code, when `outcome` is `error`. */
  readonly errorCode?: ToolErrorCode;
  /** The arguments as the `args` option shaped them (by default: keys kept, values redacted). */
  readonly args: unknown;
}

/** Receives {@link AuditRecord}s; what it throws or rejects with is ignored. */
export type AuditSink = (record: AuditRecord) => void | Promise<void>;

/** Options of {@link audit}. */
export interface AuditOptions {
  /**
   * How arguments appear in records: `'redact'` (default: every top-level value replaced by
   * `'[redacted]'`, keys kept), `'omit'`, `'include'` (as they are: mind secrets), or a
   * function that returns what to record.
   */
  readonly args?: 'redact' | 'omit' | 'include' | ((args: unknown, call: ToolCall) => unknown);
}

/** The placeholder for a redacted value. */
export const REDACTED = '[redacted]';

function redact(args: unknown): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return REDACTED;
  // fromEntries defines keys, so an argument named `__proto__` is kept, not a prototype.
  return Object.fromEntries(Object.keys(args).map((key) => [key, REDACTED]));
}

function codeOf(error: unknown, call: ToolCall): ToolErrorCode {
  if (ToolError.isInstance(error)) return error.code;
  return call.signal?.aborted === true ? 'cancelled' : 'execution';
}

const KNOWN = optionKeys<AuditOptions>({ args: true });

/**
 * Records every call: tool ID, backend, start, duration, outcome and error code, with the
 * arguments redacted unless told otherwise. A failing sink never fails the call.
 */
export function audit(sink: AuditSink, options: AuditOptions = {}): Middleware {
  refuseUnknownOptions(options, KNOWN, 'audit');
  const mode = options.args ?? 'redact';
  const shape =
    mode === 'redact'
      ? redact
      : mode === 'omit'
        ? () => undefined
        : mode === 'include'
          ? (args: unknown) => args
          : mode;

  const emit = (record: AuditRecord): void => {
    try {
      const pending = sink(record);
      if (pending instanceof Promise) pending.catch(() => undefined);
    } catch {
      // An audit sink must not change the outcome of the call it records.
    }
  };

  return (next) => async (call) => {
    const startedAt = Date.now();
    const start = performance.now();
    try {
      const result = await next(call);
      emit({
        toolId: call.toolId,
        backend: call.backend,
        startedAt,
        duration: performance.now() - start,
        outcome: 'success',
        args: shape(call.args, call),
      });
      return result;
    } catch (error) {
      emit({
        toolId: call.toolId,
        backend: call.backend,
        startedAt,
        duration: performance.now() - start,
        outcome: 'error',
        errorCode: codeOf(error, call),
        args: shape(call.args, call),
      });
      throw error;
    }
  };
}
