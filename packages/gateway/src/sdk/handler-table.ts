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

  /**
   * Which entries are deferred: bit i for `DEFERRABLE[i]`, whose entry is then the handler as it
   * was given. A number, not a second map, since a session holds it for its whole life.
   */
  private deferredBits = 0;

  /**
   * Keeps `handler` for `method` until the SDK first looks the method up; `false` (and nothing
   * kept) for a method that is not {@link DEFERRABLE}.
   */
  defer(method: string, handler: RequestHandler): boolean {
    const bit = bitOf(method);
    if (bit === 0) return false;
    super.set(method, handler);
    this.deferredBits |= bit;
    return true;
  }

  override set(method: string, handler: RequestHandler): this {
    this.deferredBits &= ~bitOf(method);
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
    const bit = this.deferredBits === 0 ? 0 : bitOf(method);
    if (bit !== 0 && (this.deferredBits & bit) !== 0) {
      const handler = super.get(method);
      this.deferredBits &= ~bit;
      super.delete(method);
      // The SDK's own registration, which ends in `set` above.
      this.owner.materialize(method, handler);
    }
    return super.get(method);
  }

  override delete(method: string): boolean {
    this.deferredBits &= ~bitOf(method);
    return super.delete(method);
  }
}

/**
 * Spec request methods whose handlers the gateway sets on every session though most sessions
 * never call them: their registration may wait for the first request. Spec methods only, so the
 * SDK's own refusal of a non-spec method cannot move to a later call. At most 31 (bits of a Smi).
 */
export const DEFERRABLE: readonly string[] = [
  'logging/setLevel',
  'tools/list',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
];

const BITS: ReadonlyMap<string, number> = new Map(DEFERRABLE.map((method, i) => [method, 1 << i]));

/** `method`'s bit in a table's deferred set; 0 for a method that is never deferred. */
function bitOf(method: string): number {
  return BITS.get(method) ?? 0;
}
