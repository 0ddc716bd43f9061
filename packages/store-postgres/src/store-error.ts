import { ToolError } from '@toolplane/toolmodel';
import { DatabaseError } from 'pg';

/** Options for {@link asStoreError}. @internal */
export interface StoreErrorOptions {
  /** Strings masked in the driver's message, so a password never reaches a log through it. */
  readonly secrets?: readonly string[];
  /** What to do about it, appended to the message. */
  readonly hint?: string;
}

/**
 * Wraps a foreign error as `store_error` (a {@link ToolError} passes through): `what` failed,
 * the driver's reason with its SQLSTATE, then the hint.
 *
 * @internal
 */
export function asStoreError(
  error: unknown,
  what: string,
  options: StoreErrorOptions = {},
): ToolError {
  if (ToolError.isInstance(error)) return error;
  let reason = error instanceof Error ? error.message : String(error);
  for (const secret of options.secrets ?? []) {
    if (secret !== '') reason = reason.replaceAll(secret, '***');
  }
  if (error instanceof DatabaseError && error.code !== undefined) {
    reason = `${reason} (SQLSTATE ${error.code})`;
  }
  const hint = options.hint === undefined ? '' : `; ${options.hint}`;
  return new ToolError('store_error', `${what}: ${reason}${hint}`, { cause: error });
}

/** Whether `error` is PostgreSQL's `query_canceled`, as a cancel request produces. @internal */
export function isQueryCanceled(error: unknown): boolean {
  return error instanceof DatabaseError && error.code === '57014';
}
