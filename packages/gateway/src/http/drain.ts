import type { ServerResponse } from 'node:http';

/**
 * The answers a gateway has in flight, so that closing it can wait for them (the drain). A
 * stream that lasts until closed (`subscriptions/listen`) is let go of with {@link untrack}.
 */
export class InFlight {
  #count = 0;
  readonly #untracked = new WeakSet<ServerResponse>();
  #idle: (() => void) | undefined;

  /** Counts `res` until it closes. */
  track(res: ServerResponse): void {
    this.#count++;
    res.once('close', () => {
      if (!this.#untracked.has(res)) this.#done();
    });
  }

  /** Stops counting `res`, a stream the drain should not wait for. */
  untrack(res: ServerResponse): void {
    if (this.#untracked.has(res)) return;
    this.#untracked.add(res);
    this.#done();
  }

  /** Resolves once nothing is in flight, or after `ms`, whichever comes first. */
  settled(ms: number): Promise<void> {
    if (this.#count === 0 || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  #done(): void {
    this.#count--;
    if (this.#count === 0) this.#idle?.();
  }
}
