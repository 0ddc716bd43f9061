import type { JSONRPCRequest, Result, ServerContext } from '@modelcontextprotocol/server';
import { answerable } from './answerable.js';

/** A request handler as the SDK keeps it in its table. */
export type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** What a {@link HandlerTable} asks of its server to turn a deferred handler into a set one. */
export interface HandlerOwner {
  /** Registers `handler` for `method` the SDK's way, so it lands in the table with `set`. */
  materialize(method: string, handler: unknown): void;
}

/**
 * The SDK's table of request handlers (its `_requestHandlers`), with two changes:
 *
 * - Each handler is wrapped as it is set so that a request whose params the SDK refused is
 *   answered as -32602 in one line (see `answerable`), not -32603 with a dump.
 * - A handler may be deferred: kept as the function it was given, and registered the SDK's way
 *   only when the SDK first looks it up. The SDK wraps every handler it is given in two closures
 *   of its own (and this table adds two), so a gateway session that sets a dozen handlers and
 *   uses two or three held ~40 closures and their contexts for methods it never called: about a
 *   quarter of the heap an open HTTP session cost.
 */
export class HandlerTable extends Map<string, RequestHandler> {
  constructor(
    entries: Iterable<readonly [string, RequestHandler]>,
    private readonly owner: HandlerOwner,
  ) {
    super(entries);
  }

  /** Handlers given but not registered yet, by method; made on the first deferral. */
  private deferred: Map<string, unknown> | undefined;

  /** Keeps `handler` for `method` until the SDK first looks the method up. */
  defer(method: string, handler: unknown): void {
    super.delete(method);
    (this.deferred ??= new Map()).set(method, handler);
  }

  override set(method: string, handler: RequestHandler): this {
    this.deferred?.delete(method);
    const fail = (error: unknown): Promise<never> => Promise.reject(answerable(error, method));
    return super.set(method, (request, ctx) => {
      try {
        return handler(request, ctx).catch(fail);
      } catch (error) {
        return fail(error);
      }
    });
  }

  override get(method: string): RequestHandler | undefined {
    const deferred = this.deferred;
    if (deferred !== undefined && deferred.has(method)) {
      const handler = deferred.get(method);
      deferred.delete(method);
      this.owner.materialize(method, handler);
    }
    return super.get(method);
  }

  override has(method: string): boolean {
    return super.has(method) || this.deferred?.has(method) === true;
  }

  override delete(method: string): boolean {
    const wasDeferred = this.deferred?.delete(method) === true;
    return super.delete(method) || wasDeferred;
  }
}
