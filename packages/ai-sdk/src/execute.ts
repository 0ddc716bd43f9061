import type { ProgressEvent } from '@toolplane/toolrun';
import { asToolError, callThrough, type ToolSource } from '@toolplane/adapter-kit';
import { followSignal } from '@toolplane/toolmodel';
import { fromError, fromRun, type AiSdkToolOutput } from './results.js';

/** Options of one call made for the AI SDK. */
export interface ExecuteOptions {
  readonly abortSignal?: AbortSignal | undefined;
  readonly meta?: Record<string, unknown> | undefined;
}

/**
 * Runs `id` through the source as an AI SDK `execute` does: yields each progress report as a
 * preliminary result, then the result (a failure as an error result the model reads). Aborting
 * `abortSignal`, or the SDK leaving the iteration early, cancels the call, so an MCP upstream
 * receives `notifications/cancelled`; a cancelled call throws its `cancelled` ToolError.
 */
export async function* executeThrough(
  source: ToolSource,
  id: string,
  input: Record<string, unknown>,
  options: ExecuteOptions,
): AsyncGenerator<AiSdkToolOutput, void, undefined> {
  const { controller, unlink } = followSignal(options.abortSignal);
  const queue: ProgressEvent[] = [];
  let wake: (() => void) | undefined;
  // An object, not a variable: TypeScript would keep a `let` narrowed across the awaits.
  const state = { settled: false };
  const settle = <T>(outcome: T): T => {
    state.settled = true;
    wake?.();
    return outcome;
  };
  const call = callThrough(source, id, input, {
    signal: controller.signal,
    onProgress: (event) => {
      queue.push(event);
      wake?.();
    },
    ...(options.meta === undefined ? {} : { meta: options.meta }),
  }).then(
    (run) => settle({ ok: true as const, run }),
    (error: unknown) => settle({ ok: false as const, error }),
  );
  try {
    for (;;) {
      while (queue.length > 0) {
        const event = queue.shift() as ProgressEvent;
        yield {
          type: 'progress',
          progress: event.progress,
          ...(event.total === undefined ? {} : { total: event.total }),
          ...(event.message === undefined ? {} : { message: event.message }),
        };
      }
      if (state.settled) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    const outcome = await call;
    if (outcome.ok) {
      yield fromRun(outcome.run);
      return;
    }
    const error = asToolError(outcome.error, id);
    if (error.code === 'cancelled') throw error;
    yield fromError(error);
  } finally {
    unlink();
    // The SDK stopped listening before the call ended: nobody wants its answer any more.
    if (!state.settled) controller.abort(new Error('the AI SDK stopped reading the tool call'));
  }
}

/** The same call without progress: one promise of the result, for the lowest overhead. */
export async function executeOnce(
  source: ToolSource,
  id: string,
  input: Record<string, unknown>,
  options: ExecuteOptions,
): Promise<AiSdkToolOutput> {
  try {
    const signal = options.abortSignal;
    return fromRun(
      await callThrough(source, id, input, {
        ...(signal === undefined ? {} : { signal }),
        ...(options.meta === undefined ? {} : { meta: options.meta }),
      }),
    );
  } catch (thrown) {
    const error = asToolError(thrown, id);
    if (error.code === 'cancelled') throw error;
    return fromError(error);
  }
}
