import { randomUUID } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tracer } from '@opentelemetry/api';
import { ToolError } from '@toolplane/toolmodel';
import type { ProgressListener } from '@toolplane/toolrun';
import { getSession, progressReporter, runInSession, type Session } from '../session.js';
import type { UpstreamRequestHandler } from '../connectors/connector.js';
import { withStructured, type ResolvedCallOptions } from '../resources/call-resources.js';
import type { CallOptions, CallResult, PromptItem, ToolkitOptions } from './types.js';
import { wrap } from './sources.js';
import { traced } from '../tracing.js';

// How deep the call in progress is nested: prompt → tool → prompt recursion ends at maxCallDepth.
const callDepth = new AsyncLocalStorage<number>();

// Caller tokens of calls made through a toolkit: unique in the process, never sent upstream.
const CALLER_PREFIX = `toolkit-${randomUUID()}`;
let callerCount = 0;

/** A new caller token for a library call, so its server's requests come back to it. */
export function nextCaller(): string {
  return `${CALLER_PREFIX}:${++callerCount}`;
}

/** One tool or prompt call as its span and the depth check name it. */
export interface NestedCall {
  kind: 'tool' | 'prompt';
  id: string;
  namespace: string;
  backend: string;
}

/** Runs one call one level deeper, in a span, with the caller's session and progress. */
export async function nested<T>(
  context: { tracer: Tracer; maxDepth: number; middlewareCount: number },
  options: CallOptions,
  call: NestedCall,
  fn: (onProgress: ProgressListener | undefined) => Promise<T>,
): Promise<T> {
  const depth = callDepth.getStore() ?? 0;
  if (depth >= context.maxDepth) {
    throw new ToolError(
      'call_depth_exceeded',
      `${call.kind} "${call.id}" would nest ${depth + 1} calls deep (limit ${context.maxDepth}); a prompt or tool is probably calling itself`,
      { toolId: call.id },
    );
  }
  const outer = progressReporter();
  const onProgress: ProgressListener | undefined =
    options.onProgress ??
    (outer === undefined
      ? undefined
      : (event) => {
          outer(event.progress, event.total, event.message);
        });
  const meta = options.meta ?? getSession().meta;
  const run = (): Promise<T> => traced(context.tracer, { ...call, meta }, () => fn(onProgress));
  // Only code that runs in this process inside the call can ask for its session or call back
  // into the toolkit; an MCP tool without middleware runs none, so its call skips the async
  // context (on Node 20, entering one makes every promise the process creates cost more).
  if (call.backend === 'mcp' && context.middlewareCount === 0) return run();
  const session: Partial<Session> =
    onProgress === undefined
      ? { ...options.session, meta }
      : {
          ...options.session,
          meta,
          progress: (progress, total, message) => {
            onProgress({
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message }),
            });
          },
        };
  return callDepth.run(depth + 1, () => runInSession(session, run));
}

/**
 * What connectors advertise and ask (read at every connect): `handler`, the toolkit's at this
 * connect, with the answerer a call brought (by its caller token) taking that call's requests.
 */
export function answererOf(
  handler: UpstreamRequestHandler | undefined,
  current: () => UpstreamRequestHandler | undefined,
  callAnswerers: ReadonlyMap<string, UpstreamRequestHandler['handle']>,
): UpstreamRequestHandler | undefined {
  if (handler === undefined) return undefined;
  return {
    capabilities: handler.capabilities,
    listRoots: (context) => {
      const now = current() ?? handler;
      return now.listRoots?.(context) ?? Promise.resolve({ roots: [] });
    },
    handle: (request, context) => {
      const own = callAnswerers.get(context.caller);
      if (own !== undefined) return own(request, context);
      // The handler of the moment, should it have been replaced since this connection.
      return (current() ?? handler).handle(request, context);
    },
    release: (caller) => (current() ?? handler).release?.(caller),
  };
}

/** Runs a prompt as a call through the toolkit's delegate (`nestedRun`: the toolkit's `#nested`). */
export async function callPrompt(
  delegate: ToolkitOptions['delegate'],
  item: PromptItem,
  input: Record<string, unknown>,
  options: ResolvedCallOptions,
  nestedRun: <T>(call: NestedCall, fn: () => Promise<T>) => Promise<T>,
): Promise<CallResult | undefined> {
  if (delegate === undefined) {
    throw new ToolError(
      'no_delegate',
      `prompt "${item.namespace}:${item.name}" needs a delegate to run it; pass createToolkit({ delegate })`,
    );
  }
  const call = {
    kind: 'prompt',
    id: `${item.namespace}:${item.name}`,
    namespace: item.namespace,
    backend: item.namespace,
  } as const;
  const answer = await nestedRun(call, () =>
    delegate.call(item.prompt, input, {
      resources: options.resources,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    }),
  );
  return withStructured(await wrap(item.name, answer), answer);
}
