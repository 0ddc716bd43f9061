import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Toolkit } from '@toolplane/toolkit';
import type { AccessPolicy } from './access.js';
import { writeJson } from './request.js';
import { READY_TIMEOUT_MS, type ServeHttpOptions } from './options.js';
import { describeUnmatchedEntry, unmatchedFilterEntries } from '../filter-check.js';

/** The path of the health check, open to anyone (its details only to a caller with the token). */
export const HEALTHZ_PATH = '/healthz';

/** What the health check reads: the gateway's state at the time of the request. */
export interface HealthSource {
  readonly toolkit: Toolkit;
  readonly access: AccessPolicy;
  readonly options: Pick<ServeHttpOptions, 'ready' | 'instanceId' | 'healthDetails'>;
  /** The tool filters in force now (as the last `reconfigure` left them). */
  readonly filter: () => ServeHttpOptions['filter'];
  /** Whether the gateway is shutting down (a balancer must send nothing more here). */
  readonly draining: () => boolean;
  /** How many sessions are open. */
  readonly sessions: () => number;
}

/**
 * Answers `GET /healthz`: a status word for anyone (`ok`, `degraded` while a connector is not
 * connected, 503 `unavailable` when the caller's readiness check fails, 503 `draining` while
 * shutting down) and, for a caller with the token, every connector's state (with its filter's
 * entries that match none of its tools), the session count and the caller's own details.
 */
export async function serveHealthz(
  source: HealthSource,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { toolkit, access, options } = source;
  // Open to health checkers, but only the token unlocks what the upstreams are and say.
  access.checkHostAndOrigin(req);
  const connectors = toolkit.connectors();
  // Draining or unable to serve: 503, so that a load balancer sends nothing more here.
  const status = source.draining()
    ? 'draining'
    : !(await isReady(options.ready))
      ? 'unavailable'
      : connectors.every((c) => c.state === 'connected')
        ? 'ok'
        : 'degraded';
  const serving = status === 'ok' || status === 'degraded';
  if (!serving) res.shouldKeepAlive = false;
  const { instanceId } = options;
  // A state of this moment, and for the token's holder details no cache may hand to others.
  res.setHeader('cache-control', 'no-store');
  writeJson(
    res,
    serving ? 200 : 503,
    access.holdsToken(req)
      ? {
          status,
          ...(instanceId === undefined ? {} : { instance: instanceId }),
          sessions: source.sessions(),
          connectors: connectors.map((status) => withUnmatchedFilter(source, status)),
          ...options.healthDetails?.(),
        }
      : { status },
  );
}

/** Whether the caller's readiness check passes, within its bound. */
async function isReady(ready: ServeHttpOptions['ready']): Promise<boolean> {
  if (ready === undefined) return true;
  try {
    return await ready({ signal: AbortSignal.timeout(READY_TIMEOUT_MS) });
  } catch {
    return false;
  }
}

/** A connector's status, with its filter's entries that match none of its tools. */
function withUnmatchedFilter<S extends { namespace: string; state: string }>(
  { toolkit, filter }: HealthSource,
  status: S,
) {
  const lists =
    status.state === 'connected' ? toolkit.connector(status.namespace)?.lists : undefined;
  const unmatched =
    lists === undefined ? [] : unmatchedFilterEntries(filter()?.[status.namespace], lists.tools);
  return unmatched.length === 0
    ? status
    : {
        ...status,
        unmatchedFilter: unmatched.map((entry) => ({
          ...entry,
          message: describeUnmatchedEntry(status.namespace, entry),
        })),
      };
}
