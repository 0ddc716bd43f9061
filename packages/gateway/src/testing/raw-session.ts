// A client of an in-process stdio gateway that speaks in raw lines, for tests that compare two
// gateways' answers line for line.
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';

/** Raw lines to and from a gateway served on its `stdin` and `stdout`. */
export class RawSession {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly #lines: string[] = [];
  #wake: (() => void) | undefined;

  constructor() {
    createInterface({ input: this.stdout }).on('line', (line) => {
      this.#lines.push(line);
      this.#wake?.();
    });
  }

  send(message: string | object): void {
    this.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /**
   * Every line read until (and with) the answer to request `id`, but list changes (the
   * session's own news: upstreams reconnecting), each as `shown` makes it.
   */
  async until(id: number, shown: (line: string) => string = (line) => line): Promise<string[]> {
    const seen: string[] = [];
    const deadline = Date.now() + 20_000;
    for (;;) {
      const line = this.#lines.shift();
      if (line === undefined) {
        if (Date.now() > deadline)
          throw new Error(`no answer to ${String(id)}: ${seen.join('\n')}`);
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          setTimeout(resolve, 1_000);
        });
        continue;
      }
      const message = JSON.parse(line) as { id?: unknown; method?: unknown };
      if (typeof message.method === 'string' && message.method.endsWith('/list_changed')) continue;
      seen.push(shown(line));
      if (message.id === id && message.method === undefined) return seen;
    }
  }

  /** Sends `message` (a request with ID `id`) and returns the lines up to its answer. */
  async exchange(
    message: string | object,
    id: number,
    shown?: (line: string) => string,
  ): Promise<string[]> {
    this.send(message);
    return this.until(id, shown);
  }
}
