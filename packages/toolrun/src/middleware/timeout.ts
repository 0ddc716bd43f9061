import { checkDuration, followSignal, ToolError } from '@toolplane/toolmodel';
import type { Middleware } from '../types.js';

/**
 * Fails a call that takes longer than `ms` milliseconds with `timeout`, and aborts the signal
 * the backend sees (an MCP server receives `notifications/cancelled`). The caller's own signal
 * still cancels the call as usual.
 *
 * @throws {ToolError} `invalid_argument` unless `ms` is a number above 0 and at most
 * `MAX_TIMER_MS` (a timer set longer fires at once).
 */
export function timeout(ms: number): Middleware {
  checkDuration(ms, 'timeout(ms)');
  return (next) => (call) =>
    new Promise((resolve, reject) => {
      const { controller, unlink } = followSignal(call.signal);
      const timer = setTimeout(() => {
        const error = new ToolError(
          'timeout',
          `tool "${call.toolId}" did not finish within ${ms} ms; raise the timeout or make the tool faster`,
          { toolId: call.toolId, backend: call.backend, op: 'execute' },
        );
        controller.abort(error);
        reject(error);
      }, ms);
      const settle = (): void => {
        clearTimeout(timer);
        unlink();
      };
      void next({ ...call, signal: controller.signal })
        .finally(settle)
        .then(resolve, reject);
    });
}
