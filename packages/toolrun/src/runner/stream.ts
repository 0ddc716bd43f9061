// `Runner.runStream`: one run turned into a pull-based stream of its progress and chunks,
// ending in one `done` or `error` event. A consumer that stops reading cancels the run.
import { followSignal, ToolError } from '@toolplane/toolmodel';
import { toToolError } from '../errors.js';
import { checkRunOptions } from '../middleware/options.js';
import type { RunOptions, RunResult, RunStreamOptions, StreamEvent } from '../types.js';
import type { MaybePromise } from './types.js';

/** How a runner starts one run; `onChunk` receives what a streaming backend yields. */
export type StartRun = (
  id: string,
  args: unknown,
  options: RunOptions,
  onChunk: (chunk: unknown) => void,
) => MaybePromise<RunResult>;

/**
 * The events of running `id` with `start`: `progress` and `chunk` as they come, then `done` or
 * `error`. Never throws: a failure is the `error` event.
 */
export async function* streamRun(
  start: StartRun,
  id: string,
  args: unknown,
  options: RunStreamOptions,
): AsyncGenerator<StreamEvent, void, undefined> {
  const toolId = typeof id === 'string' ? id : String(id);
  try {
    checkRunOptions(options, 'runStream');
  } catch (error) {
    yield { type: 'error', toolId, error: error as ToolError };
    return;
  }
  const { controller, unlink } = followSignal(options.signal);

  const queue: StreamEvent[] = [];
  let head = 0;
  let wake: (() => void) | undefined;
  const push = (event: StreamEvent): void => {
    queue.push(event);
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const runOptions: RunOptions = {
    signal: controller.signal,
    meta: options.meta,
    idempotent: options.idempotent,
    onProgress: (event) => {
      push({ type: 'progress', toolId, ...event });
    },
  };
  const onChunk = (data: unknown): void => {
    push({ type: 'chunk', toolId, data });
  };
  void Promise.resolve()
    .then(() => start(id, args, runOptions, onChunk))
    .then(
      (result) => {
        push({ type: 'done', toolId, result });
      },
      (error: unknown) => {
        push({
          type: 'error',
          toolId,
          error: ToolError.isInstance(error)
            ? error
            : toToolError(error, 'execution', { toolId, backend: undefined, op: 'execute' }),
        });
      },
    );

  let ended = false;
  try {
    for (;;) {
      while (head < queue.length) {
        const event = queue[head++] as StreamEvent;
        if (event.type === 'done' || event.type === 'error') ended = true;
        yield event;
        if (ended) return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    unlink();
    if (!ended) {
      controller.abort(
        new ToolError('cancelled', `the consumer of tool "${toolId}"'s stream stopped reading`, {
          toolId,
          op: 'execute',
        }),
      );
    }
  }
}
