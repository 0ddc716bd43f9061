import { ToolError, whenAborted } from '@toolplane/toolmodel';

/**
 * The tool calls of one run in flight at once, at most `max`: a program's `Promise.all` over a
 * thousand items would otherwise send a thousand calls at once to one upstream server (or past a
 * worker pool's queue, which refuses them). Later calls wait in arrival order.
 */
export class CallGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  /**
   * Resolves once the call may start.
   *
   * @throws {ToolError} `cancelled` when `signal` aborts (the run ended) while it waits.
   */
  async enter(signal: AbortSignal): Promise<void> {
    if (this.running < this.max) {
      this.running++;
      return;
    }
    if (signal.aborted) throw new ToolError('cancelled', 'the run ended before the call started');
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        stopWaiting();
        resolve();
      };
      const stopWaiting = whenAborted(signal, () => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new ToolError('cancelled', 'the run ended before the call started'));
      });
      this.waiting.push(grant);
    });
  }

  /** Ends a call that entered: its place passes to the next waiting one. */
  leave(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.running--;
  }
}
