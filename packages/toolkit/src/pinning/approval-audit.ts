import type { ApprovalDecision } from '@toolplane/toolrun';
import { getSession } from '../session.js';
import type { PinStore } from './pin-types.js';

/**
 * Who an audit record names as the caller: `subject:<sub>` when the gateway verified an OAuth
 * token naming a user, else `client:<client_id>` for a token that names only its client (a
 * client-credentials grant: a service acting for itself), else `session:<id>` for a call on an
 * MCP session (2025 era, the dashboard's logins), else `anonymous` (a 2026-07-28 request without
 * OAuth has no session to name). The approval records and `serve`'s call audit lines name
 * callers by this one rule, in either era.
 */
export function auditWho(caller: {
  readonly subject?: string | undefined;
  readonly clientId?: string | undefined;
  readonly session?: string | undefined;
}): string {
  if (caller.subject !== undefined && caller.subject !== '') return `subject:${caller.subject}`;
  if (caller.clientId !== undefined && caller.clientId !== '') return `client:${caller.clientId}`;
  if (caller.session !== undefined) return `session:${caller.session}`;
  return 'anonymous';
}

/**
 * An approval policy's `onDecision` that keeps every approval asked for, granted or refused as an
 * audit record of `store` (who, which tool and server, which policy, the arguments' digest, why),
 * next to the pin records: `toolplane audit` lists both. `who` is {@link auditWho} of the calling
 * session (the session's ID is kept in `detail.session` too, when it names one). A record the
 * store cannot take goes to `onError`; the call's decision stands either way.
 */
export function auditApprovals(
  store: PinStore,
  onError: (error: unknown) => void = () => undefined,
): (decision: ApprovalDecision) => void {
  return (decision) => {
    // Decided inside the call: the session is the caller's, whichever era it came in.
    const auth = getSession().auth;
    store
      .appendAudit({
        kind: `approval.${decision.type}`,
        at: decision.at,
        toolId: decision.toolId,
        who: auditWho({
          subject: auth?.subject,
          clientId: auth?.clientId,
          session: decision.session,
        }),
        detail: {
          ...(decision.session === undefined ? {} : { session: decision.session }),
          server: decision.server,
          policy: decision.policy,
          argumentsDigest: decision.argsHash,
          ...(decision.reason === undefined ? {} : { reason: decision.reason }),
        },
      })
      .catch(onError);
  };
}
