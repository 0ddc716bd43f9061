import { createIndex, type ToolIndex } from '@toolplane/toolindex';
import { ToolError, type Tool, type ToolBackend } from '@toolplane/toolmodel';
import { createLocalRegistry, type LocalHandler, type LocalRegistry } from '../local-registry.js';
import { createRunner } from '../runner/runner.js';
import type { Runner } from '../runner/types.js';
import type { Middleware, StreamEvent } from '../types.js';

// Shared by the tests; excluded from the build.

/** Awaits `promise` and returns the ToolError it rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw new Error(`expected a ToolError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the promise to reject');
}

/** A promise and the function that resolves it. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A fresh index, local registry and runner over both, for runner tests. */
export function createLocalRunner(): {
  index: ToolIndex;
  registry: LocalRegistry;
  runner: Runner;
} {
  const index = createIndex();
  const registry = createLocalRegistry();
  return { index, registry, runner: createRunner({ index, local: registry }) };
}

/** An index and a local registry in the `mw` namespace, for middleware tests. */
export interface LocalBench {
  readonly index: ToolIndex;
  readonly registry: LocalRegistry;
  /** Registers a local tool `mw:<name>` and returns its ID. */
  readonly define: (name: string, handler: LocalHandler, extra?: Partial<Tool>) => string;
  /** A runner over the bench with `middleware`. */
  readonly runnerWith: (...middleware: Middleware[]) => Runner;
}

/** A fresh {@link LocalBench}. */
export function createLocalBench(): LocalBench {
  const index = createIndex();
  const registry = createLocalRegistry();
  return {
    index,
    registry,
    define: (name, handler, extra = {}) => {
      index.registerTool(
        { name, namespace: 'mw', inputSchema: { type: 'object' }, ...extra },
        { kind: 'local', local: { name } },
      );
      registry.register(name, handler);
      return `mw:${name}`;
    },
    runnerWith: (...middleware) => createRunner({ index, local: registry, middleware }),
  };
}

/** A local backend bound to the handler `name`. */
export function localBackend(name: string): ToolBackend {
  return { kind: 'local', local: { name } };
}

/** A tool `demo:<name>` taking any object, with `extra` fields. */
export function demoTool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, namespace: 'demo', inputSchema: { type: 'object' }, ...extra };
}

/** Every event of a run's stream, in order. */
export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}
