import type { ServerResponse } from 'node:http';
import type { PinStore, Toolkit } from '@toolplane/toolkit';
import type { CallFeed } from './call-feed.js';
import { UiError } from './http.js';

// A comment line this often keeps proxies from closing a quiet stream.
const HEARTBEAT_MS = 15_000;
// The tool index changes in bursts (a server's whole list at once): one event per burst.
const TOOLS_SETTLE_MS = 50;

/** What {@link EventStreams} listens to. */
export interface EventSources {
  readonly toolkit: Toolkit;
  readonly feed: CallFeed;
  /** The pin store, whose change feed becomes `pins` events. */
  readonly pins?: PinStore;
  /** Most streams open at once. */
  readonly max: number;
}

/**
 * The live streams (server-sent events) of the dashboard's pages: `call` (a call started,
 * progressed or ended), `tools` (the catalogue changed: a server came, went or changed its
 * list), `lists` (a server's prompts or resources changed), `connector` (a connector's state
 * changed), `pins` (a tool's pin or pending change was written: a change seen, or accepted here
 * or by `toolplane tools accept`). Bounded in number, so open streams cannot
 * hold every connection of the gateway.
 */
export class EventStreams {
  // Each stream with the check of the login it was opened under.
  readonly #streams = new Map<ServerResponse, () => boolean>();
  readonly #max: number;
  readonly #stop: (() => void)[] = [];
  #toolsTimer: NodeJS.Timeout | undefined;
  #pinsTimer: NodeJS.Timeout | undefined;

  constructor({ toolkit, feed, pins, max }: EventSources) {
    this.#max = max;
    if (pins !== undefined) {
      this.#stop.push(
        // An acceptance of a namespace writes many tools at once: one event per burst.
        pins.watch(() => {
          this.#pinsTimer ??= setTimeout(() => {
            this.#pinsTimer = undefined;
            this.#send('pins', {});
          }, TOOLS_SETTLE_MS);
        }),
      );
    }
    this.#stop.push(
      feed.subscribe((event) => {
        this.#send('call', event);
      }),
      toolkit.index.onChange(() => {
        this.#toolsTimer ??= setTimeout(() => {
          this.#toolsTimer = undefined;
          this.#send('tools', { version: toolkit.index.version });
        }, TOOLS_SETTLE_MS);
      }),
      toolkit.onEvent((event) => {
        if (event.type === 'prompt_list_changed' || event.type === 'resource_list_changed') {
          this.#send('lists', { namespace: event.namespace, type: event.type });
          return;
        }
        if (event.type !== 'state_change') return;
        this.#send('connector', {
          namespace: event.namespace,
          state: event.state,
          ...(event.error === undefined ? {} : { error: event.error.message }),
        });
      }),
    );
  }

  /**
   * Opens a stream on `res` for as long as `live` says its login is open: a stream whose login
   * ended (logout, expiry, an OAuth token's end) is ended before anything more is written to it.
   *
   * @throws {UiError} 503 `resource_exhausted` when the bound of open streams is reached.
   */
  open(res: ServerResponse, live: () => boolean = () => true): void {
    if (this.#streams.size >= this.#max) {
      res.setHeader('retry-after', '5');
      throw new UiError(
        503,
        'resource_exhausted',
        `${String(this.#max)} live streams are open; close a dashboard tab and retry`,
      );
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n: ready\n\n');
    const beat = setInterval(() => {
      this.#write(res, ': beat\n\n');
    }, HEARTBEAT_MS);
    beat.unref();
    this.#streams.set(res, live);
    res.once('close', () => {
      clearInterval(beat);
      this.#streams.delete(res);
    });
  }

  /** Ends every stream and stops listening. */
  close(): void {
    for (const stop of this.#stop) stop();
    clearTimeout(this.#toolsTimer);
    clearTimeout(this.#pinsTimer);
    for (const res of this.#streams.keys()) res.end();
    this.#streams.clear();
  }

  #send(event: string, data: unknown): void {
    if (this.#streams.size === 0) return;
    // JSON has no raw newline, so one data line carries it.
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of [...this.#streams.keys()]) this.#write(res, frame);
  }

  #write(res: ServerResponse, frame: string): void {
    if (this.#streams.get(res)?.() === true) {
      res.write(frame);
      return;
    }
    this.#streams.delete(res);
    res.end();
  }
}
