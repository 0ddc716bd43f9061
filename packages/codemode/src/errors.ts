import { ToolError, type ToolErrorCode, type ToolErrorOptions } from '@toolplane/toolmodel';
import type { LogEntry } from './protocol.js';

/** How many calls a run made: in all, per tool, and how many failed. */
export interface CallStats {
  /** Tool calls made (searches not counted). */
  readonly total: number;
  /** Tool calls that failed (the program saw them throw). */
  readonly errors: number;
  /** `search(...)` calls made. */
  readonly searches: number;
  /** Per canonical tool ID: calls, failures, and the milliseconds they took together. */
  readonly byTool: Readonly<Record<string, { calls: number; errors: number; ms: number }>>;
}

/** Options of the {@link CodeModeError} constructor. */
export interface CodeModeErrorOptions extends ToolErrorOptions {
  readonly line?: number;
  readonly column?: number;
  readonly logs?: readonly LogEntry[];
  readonly calls?: CallStats;
}

/**
 * A failed code-mode run: a {@link ToolError} with, where known, the program's line and column,
 * and what the run logged and called before it failed.
 */
export class CodeModeError extends ToolError {
  override name = 'CodeModeError';
  /** 1-based line of the program the failure points at (a syntax error, an uncaught throw). */
  readonly line?: number;
  /** 1-based column on {@link CodeModeError.line}. */
  readonly column?: number;
  /** What the program logged before it failed. */
  readonly logs: readonly LogEntry[];
  /** The calls it made before it failed. */
  readonly calls: CallStats | undefined;

  constructor(code: ToolErrorCode, message: string, options: CodeModeErrorOptions = {}) {
    super(code, message, options);
    if (options.line !== undefined) this.line = options.line;
    if (options.column !== undefined) this.column = options.column;
    this.logs = options.logs ?? [];
    this.calls = options.calls;
  }
}
