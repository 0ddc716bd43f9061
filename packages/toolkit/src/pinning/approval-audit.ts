import type { ApprovalDecision } from '@toolplane/toolrun';
import type { PinStore } from './pin-types.js';

/**
 * An approval policy's `onDecision` that keeps every approval asked for, granted or refused as an
 * audit record of `store` (who, which tool and server, which policy, the arguments' digest, why),
 * next to the pin records: `toolplane audit` lists both. A record the store cannot take goes to
 * `onError`; the call's decision stands either way.
 */
export function auditApprovals(
  store: PinStore,
  onError: (error: unknown) => void = () => undefined,
): (decision: ApprovalDecision) => void {
  return (decision) => {
    store
      .appendAudit({
        kind: `approval.${decision.type}`,
        at: decision.at,
        toolId: decision.toolId,
        ...(decision.session === undefined ? {} : { who: `session:${decision.session}` }),
        detail: {
          server: decision.server,
          policy: decision.policy,
          argumentsDigest: decision.argsHash,
          ...(decision.reason === undefined ? {} : { reason: decision.reason }),
        },
      })
      .catch(onError);
  };
}
