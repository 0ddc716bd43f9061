import { ToolError } from '@toolplane/toolmodel';
import type { ProgressListener, RunMeta } from './types.js';

/** What a {@link LocalHandler} receives besides its arguments. */
export interface LocalHandlerContext {
  /** Aborted when the caller cancels; a handler doing long work should honour it. */
  readonly signal: AbortSignal;
  /** Reports progress to the caller (a no-op when nobody listens). */
  readonly progress: ProgressListener;
  /** The caller's request metadata, if any. */
  readonly meta: RunMeta | undefined;
}

/**
 * An in-process tool implementation. It may return a value, a promise, or an async iterable
 * (e.g. an async generator), whose yields are stream chunks and whose return value, when not
 * `undefined`, is the result (otherwise the array of chunks is).
 */
export type LocalHandler = (args: unknown, context: LocalHandlerContext) => unknown;

/**
 * What the runner needs of local handlers: a lookup by name. A {@link LocalRegistry} is one; so
 * is any object with a `get`, e.g. a `Map<string, LocalHandler>`.
 */
export interface LocalHandlers {
  /** The handler registered under `name`, if any. */
  get(name: string): LocalHandler | undefined;
}

/**
 * Local handlers by name, for tools bound to a `local` backend. Backed by a `Map`, so names
 * like `toString` or `__proto__` are ordinary keys, never inherited functions.
 */
export interface LocalRegistry extends LocalHandlers {
  /**
   * Registers `handler` under `name`, replacing any earlier one.
   *
   * @throws {ToolError} `invalid_argument` when `name` is empty or `handler` is not a function.
   */
  register(name: string, handler: LocalHandler): this;
  /** The handler registered under `name`, if any. */
  get(name: string): LocalHandler | undefined;
  /** True when a handler is registered under `name`. */
  has(name: string): boolean;
  /** Removes the handler under `name`; true when there was one. */
  unregister(name: string): boolean;
  /** The registered names, in registration order. */
  names(): string[];
}

/**
 * Creates an empty {@link LocalRegistry}; pass it to {@link createRunner} as `local`.
 *
 * @example
 * const local = createLocalRegistry().register('echo', (args) => args);
 */
export function createLocalRegistry(): LocalRegistry {
  const handlers = new Map<string, LocalHandler>();
  const registry: LocalRegistry = {
    register(name, handler) {
      if (typeof name !== 'string' || name.length === 0) {
        throw new ToolError('invalid_argument', 'local handler name must be a non-empty string');
      }
      if (typeof handler !== 'function') {
        throw new ToolError(
          'invalid_argument',
          `local handler ${JSON.stringify(name)} must be a function, got ${typeof handler}`,
        );
      }
      handlers.set(name, handler);
      return this;
    },
    get: (name) => handlers.get(name),
    has: (name) => handlers.has(name),
    unregister: (name) => handlers.delete(name),
    names: () => [...handlers.keys()],
  };
  return registry;
}
