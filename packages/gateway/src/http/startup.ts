import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { HttpError } from './request.js';

/** How long an MCP request waits for the startup to be over, when the caller sets no bound. */
export const DEFAULT_STARTUP_WAIT_MS = 10_000;

/** What {@link StartupGate} holds MCP requests for; see `ServeHttpOptions.startup`. */
export interface StartupOptions {
  /** Settles (either way) when the upstreams' first connection attempts are over. */
  readonly until: PromiseLike<unknown>;
  /** How long one request waits for it before a 503 with `Retry-After` (default 10 s). */
  readonly waitMs?: number;
}

/**
 * Holds MCP requests until the caller's startup is over, so that no client is ever answered from
 * a half-filled registry (a `tools/list` with only the servers that happened to be quick). A
 * request that would wait past its bound gets a 503 a client may retry instead.
 */
export class StartupGate {
  #over: boolean;
  readonly #until: Promise<void> | undefined;
  readonly #waitMs: number;

  constructor(startup: StartupOptions | undefined) {
    this.#over = startup === undefined;
    this.#waitMs = startup?.waitMs ?? DEFAULT_STARTUP_WAIT_MS;
    // A rejection means the startup is over as surely as a resolution does.
    this.#until =
      startup === undefined
        ? undefined
        : Promise.resolve(startup.until).then(
            () => {
              this.#over = true;
            },
            () => {
              this.#over = true;
            },
          );
  }

  /** Whether requests are served without waiting. */
  get over(): boolean {
    return this.#over;
  }

  /**
   * Resolves at once after the startup, else when it is over, within the bound; `gone` (the
   * client hung up) ends the wait early.
   *
   * @throws {HttpError} 503 when the bound passes first.
   */
  async pass(gone?: AbortSignal): Promise<void> {
    if (this.#over || this.#until === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(resolve, this.#waitMs, 'timeout');
      gone?.addEventListener('abort', () => {
        resolve('timeout');
      });
    });
    try {
      const first = await Promise.race([this.#until, timedOut]);
      if (first !== 'timeout') return;
    } finally {
      clearTimeout(timer);
    }
    throw new HttpError(
      503,
      ProtocolErrorCode.InternalError,
      `the gateway is still connecting its servers (waited ${String(this.#waitMs)} ms); retry shortly`,
    );
  }
}
