import type { Toolkit } from '../toolkit/toolkit.js';

/** A toolkit started by {@link runToolkit}, and the way to stop it. */
export interface RunningToolkit {
  /** The toolkit that was passed in, now running with its connectors' first attempts done. */
  readonly toolkit: Toolkit;
  /**
   * Ends the run: aborts it and resolves once the toolkit is closed (connectors and their
   * children ended). Idempotent: every call returns the same promise.
   */
  readonly stop: () => Promise<void>;
}

/**
 * Runs `toolkit` in the background until the test stops it, and resolves once every connector
 * has connected or failed its first attempt (`ready()`). Build the toolkit and add its connectors
 * first; call `stop()` in `afterEach`/`afterAll` or a `finally`.
 *
 * If the run cannot start or the wait is cancelled, the run is stopped before the error is
 * passed on, so nothing is left running.
 *
 * @throws {ToolError} `invalid_config` when the toolkit is closed or already running;
 *   `cancelled` when `signal` aborts while waiting for the toolkit to be ready (a signal that is
 *   already aborted rejects with its reason, as {@link Toolkit.ready} does).
 *
 * @example
 * ```ts
 * const toolkit = createToolkit();
 * toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
 * const { stop } = await runToolkit(toolkit);
 * try {
 *   expect(toolkit.connector('fx')?.state).toBe('connected');
 * } finally {
 *   await stop();
 * }
 * ```
 */
export async function runToolkit(
  toolkit: Toolkit,
  options: { signal?: AbortSignal } = {},
): Promise<RunningToolkit> {
  const controller = new AbortController();
  const running = toolkit.run({ signal: controller.signal });
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      controller.abort();
      await running;
    })();
    return stopped;
  };
  try {
    // `running` only settles before `ready()` when the run fails to start (or is closed).
    await Promise.race([running, toolkit.ready(options)]);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { toolkit, stop };
}
