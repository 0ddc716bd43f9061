import type { Secrets } from '../secrets.js';
import type { Logger } from '../session.js';
import type { ToolkitEvent, ToolkitOptions } from './types.js';

type Listener = (event: ToolkitEvent) => void;

/**
 * Where a toolkit's events go: each masked of the configured secrets, to the delegate's
 * `onEvent` first, then to every listener `onEvent` added, in the order they were added. A
 * listener that throws is logged as a warning and the others still hear the event: an event is
 * never the emitter's failure.
 */
export class EventFanout {
  readonly #listeners = new Set<Listener>();
  readonly #secrets: Secrets;
  readonly #logger: Logger;
  readonly #delegate: ToolkitOptions['delegate'];

  constructor(parts: {
    readonly secrets: Secrets;
    readonly logger: Logger;
    readonly delegate: ToolkitOptions['delegate'];
  }) {
    this.#secrets = parts.secrets;
    this.#logger = parts.logger;
    this.#delegate = parts.delegate;
  }

  /** Adds `listener`; the function returned removes it. */
  listen(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  emit(unmasked: ToolkitEvent): void {
    const event = this.#secrets.redactEvent(unmasked);
    const delegate = this.#delegate;
    const listeners: Listener[] = [...this.#listeners];
    if (delegate?.onEvent !== undefined) listeners.unshift((e) => delegate.onEvent?.(e));
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn('a toolkit event listener failed to handle an event', {
          event: event.type,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}
