import { randomUUID } from 'node:crypto';
import { ToolError } from '@toolplane/toolmodel';
import { withUri, type Resource } from './resources.js';
import { getSession } from '../session.js';
import type { CallOptions, CallResult } from '../toolkit/types.js';

/** The URI prefix of a result kept with `keep: true`: `toolplane://results/<random ID>`. */
export const RESULT_URI_PREFIX = 'toolplane://results/';

/** How many results one session keeps; the oldest goes first. */
export const MAX_KEPT_PER_SESSION = 64;
/** How many sessions keep results at once; the one idle longest goes first. */
export const MAX_KEEPING_SESSIONS = 1_024;

/**
 * The call results kept for later calls of the same session, by the URI each was given. Bounded
 * both ways, least recently used first out; a session sees only its own.
 *
 * @internal
 */
export class KeptResults {
  // Session key → its results by URI; both maps in least recently used order (Map keeps insertion).
  readonly #sessions = new Map<string, Map<string, Resource>>();

  /** Keeps `result` for `session` under a new result URI and returns it with that URI. */
  keep(session: string, result: Resource): Resource {
    const kept = withUri(result, `${RESULT_URI_PREFIX}${randomUUID()}`);
    const results = this.#touch(session) ?? new Map<string, Resource>();
    this.#sessions.set(session, results);
    results.set(kept.uri, kept);
    if (results.size > MAX_KEPT_PER_SESSION) results.delete(first(results));
    if (this.#sessions.size > MAX_KEEPING_SESSIONS) this.#sessions.delete(first(this.#sessions));
    return kept;
  }

  /**
   * The result `session` kept under `uri`.
   *
   * @throws {ToolError} `not_found` when it has none there (never kept, evicted, or another
   * session's).
   */
  get(session: string, uri: string): Resource {
    const results = this.#touch(session);
    const found = results?.get(uri);
    if (results === undefined || found === undefined) {
      throw new ToolError(
        'not_found',
        `no kept result "${uri}" in this session; results are kept per session, the latest ${MAX_KEPT_PER_SESSION} of each`,
      );
    }
    results.delete(uri);
    results.set(uri, found);
    return found;
  }

  /** Forgets what `session` kept. */
  forget(session: string): void {
    this.#sessions.delete(session);
  }

  // Moves the session to the most recently used end.
  #touch(session: string): Map<string, Resource> | undefined {
    const results = this.#sessions.get(session);
    if (results !== undefined) {
      this.#sessions.delete(session);
      this.#sessions.set(session, results);
    }
    return results;
  }
}

/** Whether `uri` names a kept result. */
export function isResultUri(uri: string): boolean {
  return uri.startsWith(RESULT_URI_PREFIX);
}

function first<K>(map: Map<K, unknown>): K {
  return map.keys().next().value as K;
}

/** {@link CallOptions} with the resources read. */
export type ResolvedCallOptions = CallOptions & { readonly resources: readonly Resource[] };

/** Whose kept results a call sees: the session it names, or else the current one. */
export function sessionKey(options: CallOptions): string {
  return options.session?.id ?? getSession().id ?? '';
}

/**
 * `options` with its resources read (kept results and other URIs among them) and handed to the
 * call's session, which so gets none from an outer call.
 */
export async function withResources(
  options: CallOptions,
  kept: KeptResults,
  read: (uri: string) => Promise<Resource>,
): Promise<ResolvedCallOptions> {
  const given = options.resources ?? [];
  const resources = given.every((r) => typeof r !== 'string')
    ? given
    : await Promise.all(
        given.map(async (r) => {
          if (typeof r !== 'string') return r;
          return isResultUri(r) ? kept.get(sessionKey(options), r) : read(r);
        }),
      );
  return { ...options, resources, session: { ...options.session, resources } };
}

/**
 * `resource` with `structured` on it, not enumerable: callers get the answer typed, while code
 * that spreads, compares or serialises the resource sees the same resource as before.
 */
export function withStructured(
  resource: Resource | undefined,
  structured: unknown,
): CallResult | undefined {
  if (resource === undefined) return undefined;
  return Object.defineProperty(resource, 'structured', {
    value: structured,
    enumerable: false,
  }) as CallResult;
}
