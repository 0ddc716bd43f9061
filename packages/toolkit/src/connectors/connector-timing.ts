import { ToolError } from '@toolplane/toolmodel';

/** Resolves after `ms`, or as soon as `signal` aborts. */
export async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Resolves when one of `waiters` (a wake-up added to them) is called; rejects with a `cancelled`
 * {@link ToolError} naming `what` when `signal` aborts first.
 */
export function nextWake(
  waiters: Set<() => void>,
  signal: AbortSignal | undefined,
  what: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ToolError('cancelled', `${what} was cancelled`, { cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      waiters.delete(wake);
      reject(new ToolError('cancelled', `${what} was cancelled`, { cause: signal?.reason }));
    };
    const wake = (): void => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    waiters.add(wake);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
