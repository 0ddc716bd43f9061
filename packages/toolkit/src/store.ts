import { throwIfAborted, ToolError } from '@toolplane/toolmodel';
import { validatePrompt, type Prompt } from './prompts/prompts.js';
import {
  resourceInfo,
  validateResource,
  type Resource,
  type ResourceInfo,
} from './resources/resources.js';

/** Options accepted by every {@link Store} method. */
export interface StoreCallOptions {
  readonly signal?: AbortSignal;
}

/** One change to a {@link Store}, as delivered to {@link Store.subscribe} listeners. */
export type StoreChange =
  | { readonly kind: 'prompt'; readonly op: 'put' | 'delete'; readonly name: string }
  | {
      readonly kind: 'resource';
      readonly op: 'put' | 'delete';
      readonly uri: string;
      readonly name: string;
    };

/** Receives {@link StoreChange}s; see {@link Store.subscribe}. */
export type StoreListener = (change: StoreChange) => void;

/**
 * Where the user namespace keeps its prompts and resources. A change is visible to the very next
 * `get`/`list` once its promise resolves, and is announced to subscribers by then.
 * Implementations: {@link createMemoryStore}, `@toolplane/store-sqlite`; check a new one with
 * `describeStoreContract` from `@toolplane/toolkit/testing/vitest`.
 */
export interface Store {
  /**
   * All prompts, by name.
   *
   * @throws {ToolError} `store_error` when the store fails or is closed; `cancelled`.
   */
  listPrompts(options?: StoreCallOptions): Promise<Prompt[]>;
  /**
   * The prompt called `name`, or `undefined`.
   *
   * @throws {ToolError} `store_error`; `cancelled`.
   */
  getPrompt(name: string, options?: StoreCallOptions): Promise<Prompt | undefined>;
  /**
   * Creates or replaces the prompt of that name; resolves to the stored copy.
   *
   * @throws {ToolError} `invalid_prompt` for a malformed prompt; `store_error`; `cancelled`.
   */
  putPrompt(prompt: Prompt, options?: StoreCallOptions): Promise<Prompt>;
  /**
   * Deletes the prompt called `name`; resolves to whether there was one.
   *
   * @throws {ToolError} `store_error`; `cancelled`.
   */
  deletePrompt(name: string, options?: StoreCallOptions): Promise<boolean>;
  /**
   * All resources without their contents, by URI.
   *
   * @throws {ToolError} `store_error`; `cancelled`.
   */
  listResources(options?: StoreCallOptions): Promise<ResourceInfo[]>;
  /**
   * The resource at `uri` with its contents, or `undefined`.
   *
   * @throws {ToolError} `store_error`; `cancelled`.
   */
  getResource(uri: string, options?: StoreCallOptions): Promise<Resource | undefined>;
  /**
   * Creates or replaces the resource at its URI; resolves to the stored resource's info.
   *
   * @throws {ToolError} `invalid_resource` for a malformed resource; `store_error`; `cancelled`.
   */
  putResource(resource: Resource, options?: StoreCallOptions): Promise<ResourceInfo>;
  /**
   * Deletes the resource at `uri`; resolves to whether there was one.
   *
   * @throws {ToolError} `store_error`; `cancelled`.
   */
  deleteResource(uri: string, options?: StoreCallOptions): Promise<boolean>;
  /**
   * Calls `listener` after each change; returns a function that stops it. A listener that throws
   * does not affect the store or other listeners: its error is reported (by default with
   * `console.error`), never thrown into the writer or the process.
   */
  subscribe(listener: StoreListener): () => void;
  /** Releases the store's resources; later calls fail with `store_error`. Idempotent. */
  close(): Promise<void>;
}

/** Fan-out of {@link StoreChange}s to listeners, for {@link Store} implementations. */
export interface ChangeEmitter {
  /** Delivers `change` to every current listener. */
  emit(change: StoreChange): void;
  /** As {@link Store.subscribe}. */
  subscribe(listener: StoreListener): () => void;
  /** Drops every listener. */
  clear(): void;
}

/** Options for {@link createChangeEmitter}. */
export interface ChangeEmitterOptions {
  /** Receives a listener's error; default `console.error`. The other listeners still run. */
  readonly onListenerError?: (error: unknown, change: StoreChange) => void;
}

function reportListenerError(error: unknown, change: StoreChange): void {
  console.error('a store change listener failed', change, error);
}

/** Creates the listener fan-out a {@link Store} implementation needs for `subscribe`. */
export function createChangeEmitter(options: ChangeEmitterOptions = {}): ChangeEmitter {
  const listeners = new Set<StoreListener>();
  const onListenerError = options.onListenerError ?? reportListenerError;
  return {
    emit(change) {
      // A copy, so a listener that unsubscribes (or subscribes) mid-dispatch changes nothing now.
      for (const listener of [...listeners]) {
        try {
          listener(change);
        } catch (error) {
          // A failing listener is its owner's bug; it must not crash the process or the writer.
          try {
            onListenerError(error, change);
          } catch {
            // nothing sensible is left to do
          }
        }
      }
    },
    subscribe(listener) {
      // Wrapped so one function subscribed twice gets two independent subscriptions.
      const entry: StoreListener = (change) => {
        listener(change);
      };
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    clear() {
      listeners.clear();
    },
  };
}

/**
 * Creates a {@link Store} held in memory: for tests, and for apps that rebuild the user namespace
 * at start-up. Values are copied in and out, so callers never share objects with it.
 */
export function createMemoryStore(): Store {
  const prompts = new Map<string, Prompt>();
  const resources = new Map<string, Resource>();
  const changes = createChangeEmitter();
  let closed = false;

  // The executor turns a synchronous throw into a rejection, as an async store would behave.
  const run = <T>(options: StoreCallOptions | undefined, body: () => T): Promise<T> =>
    new Promise<T>((resolve) => {
      if (closed) throw new ToolError('store_error', 'the memory store is closed');
      throwIfAborted(options?.signal);
      resolve(body());
    });

  return {
    listPrompts: (options) =>
      run(options, () => sortedValues(prompts).map((p) => structuredClone(p))),
    getPrompt: (name, options) =>
      run(options, () => {
        const prompt = prompts.get(name);
        return prompt === undefined ? undefined : structuredClone(prompt);
      }),
    putPrompt: (prompt, options) =>
      run(options, () => {
        const stored = structuredClone(validatePrompt(prompt));
        prompts.set(stored.name, stored);
        changes.emit({ kind: 'prompt', op: 'put', name: stored.name });
        return structuredClone(stored);
      }),
    deletePrompt: (name, options) =>
      run(options, () => {
        const existed = prompts.delete(name);
        if (existed) changes.emit({ kind: 'prompt', op: 'delete', name });
        return existed;
      }),
    listResources: (options) => run(options, () => sortedValues(resources).map(resourceInfo)),
    getResource: (uri, options) =>
      run(options, () => {
        const stored = resources.get(uri);
        return stored === undefined ? undefined : { ...stored };
      }),
    putResource: (resource, options) =>
      run(options, () => {
        // Strings are immutable, so the validated copy shares nothing mutable with the caller.
        const stored = validateResource(resource);
        resources.set(stored.uri, stored);
        changes.emit({ kind: 'resource', op: 'put', uri: stored.uri, name: stored.name });
        return resourceInfo(stored);
      }),
    deleteResource: (uri, options) =>
      run(options, () => {
        const stored = resources.get(uri);
        if (stored === undefined) return false;
        resources.delete(uri);
        changes.emit({ kind: 'resource', op: 'delete', uri, name: stored.name });
        return true;
      }),
    subscribe: (listener) => changes.subscribe(listener),
    close() {
      closed = true;
      changes.clear();
      return Promise.resolve();
    },
  };
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.keys()].sort(compareKeys).map((key) => map.get(key) as T);
}

/**
 * The order every {@link Store} lists in: by UTF-16 code unit, as JavaScript compares strings.
 * Exported so other stores sort the same way.
 */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
