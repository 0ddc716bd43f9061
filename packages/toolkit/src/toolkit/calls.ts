import type { Tracer } from '@opentelemetry/api';
import type { ProgressListener, RunResult } from '@toolplane/toolrun';
import type { DefinedTool } from '../define-tool.js';
import type { Resource } from '../resources/resources.js';
import {
  sessionKey,
  withResources,
  withStructured,
  type KeptResults,
  type ResolvedCallOptions,
} from '../resources/call-resources.js';
import type { Builtins } from './builtins.js';
import { callPrompt, nested, type NestedCall } from './calling.js';
import { callToolIn, type ToolCallParts } from './call-tool.js';
import { callTarget } from './items.js';
import { downFor } from './lookup.js';
import { readItemIn, type ReadingParts } from './reading.js';
import { wrap } from './sources.js';
import type { CallOptions, CallResult, ReadOptions, ToolkitItem, ToolkitOptions } from './types.js';
import { refuseUnknownMethodOptions, refusedMethodOptions } from './unknown-options.js';

/** What a toolkit's {@link ToolkitCalls} take from it, besides what {@link callToolIn} does. */
export interface CallingParts extends Omit<ToolCallParts, 'withResources' | 'nested'> {
  readonly tracer: Tracer;
  readonly maxDepth: number;
  readonly delegate: ToolkitOptions['delegate'];
  readonly builtins: Builtins;
  readonly kept: KeptResults;
  readonly reading: ReadingParts;
  /** The toolkit's lookup (a tool pinning withholds is refused, saying why). */
  lookup(key: string, signal: AbortSignal | undefined): Promise<ToolkitItem>;
  /** The toolkit's `readResource`, for the resources a call names by URI. */
  readResource(key: string, options: ReadOptions): Promise<Resource>;
}

/**
 * The calling side of a toolkit: {@link Toolkit.call} and {@link Toolkit.callTool}, each call
 * nested one level deeper, in a span, with the resources it names read.
 *
 * @internal
 */
export class ToolkitCalls {
  readonly #parts: CallingParts;
  readonly #toolParts: ToolCallParts;

  constructor(parts: CallingParts) {
    this.#parts = parts;
    this.#toolParts = {
      ...parts,
      withResources: (given) => this.#withResources(given),
      nested: (given, call, fn) => this.#nested(given, call, fn),
    };
  }

  /** {@link Toolkit.call}: a tool's, a prompt's or a resource's answer as a resource. */
  async call(
    target: string | ToolkitItem | DefinedTool,
    input: unknown,
    options: CallOptions,
  ): Promise<CallResult | Resource | undefined> {
    refuseUnknownMethodOptions(options, 'call');
    const args = input as Record<string, unknown>;
    const parts = this.#parts;
    const kind = callTarget(target, 'call');
    const item =
      kind === 'key'
        ? await parts.lookup(target as string, options.signal).catch((error: unknown) => {
            // A server that is down: its error (as callTool's), not `not_found`.
            const down = downFor((ns) => parts.connectors.get(ns), target);
            throw parts.secrets.redactError(down ?? error);
          })
        : kind === 'item'
          ? (target as ToolkitItem)
          : parts.builtins.item(target as DefinedTool);
    const resolved = await this.#withResources(options);
    const result = await this.#callItem(item, args, resolved);
    if (options.keep !== true || result === undefined) return result;
    const kept = parts.kept.keep(sessionKey(options), result);
    return 'structured' in result ? withStructured(kept, result.structured) : kept;
  }

  /** {@link Toolkit.callTool}: the tool's run result. */
  callTool(target: string | DefinedTool, args: unknown, options: CallOptions): Promise<RunResult> {
    const refused = refusedMethodOptions(options, 'callTool');
    if (refused !== undefined) return refused;
    const input = args as Record<string, unknown>;
    if (typeof target === 'string') return callToolIn(this.#toolParts, target, input, options);
    // A definition this toolkit does not hold fails the returned promise, never synchronously.
    return Promise.resolve(target).then((tool) => {
      callTarget(tool, 'callTool');
      return callToolIn(this.#toolParts, this.#parts.builtins.item(tool).id, input, options);
    });
  }

  async #callItem(
    item: ToolkitItem,
    args: Record<string, unknown>,
    options: ResolvedCallOptions,
  ): Promise<CallResult | Resource | undefined> {
    switch (item.type) {
      case 'tool': {
        const result = await this.callTool(item.id, args, options);
        return withStructured(await wrap(item.name, result.structured), result.structured);
      }
      case 'prompt':
        return callPrompt(this.#parts.delegate, item, args, options, (call, fn) =>
          this.#nested(options, call, fn),
        );
      case 'resource':
        return readItemIn(this.#parts.reading, item, options);
    }
  }

  #withResources(options: CallOptions): Promise<ResolvedCallOptions> {
    return withResources(options, this.#parts.kept, (uri) =>
      this.#parts.readResource(uri, { signal: options.signal, sessionKey: options.sessionKey }),
    );
  }

  /** Runs one call one level deeper, in a span, with the caller's session and progress. */
  #nested<T>(
    options: CallOptions,
    call: NestedCall,
    fn: (onProgress: ProgressListener | undefined) => Promise<T>,
  ): Promise<T> {
    const { tracer, maxDepth, middlewareCount } = this.#parts;
    return nested({ tracer, maxDepth, middlewareCount }, options, call, fn);
  }
}
