import type { ApprovalPolicy } from './policy.js';

// The steps of an approval, apart from the middleware that takes them: a tool call
// (`ToolCall.onApproval`, types.ts) hears them too, and types.ts must not import the middleware.

/** Why a call was refused (or granted), in {@link ApprovalDecision.reason}. */
export type ApprovalReason =
  | 'accepted'
  | 'remembered'
  | 'declined'
  | 'cancelled'
  | 'timeout'
  | 'unavailable'
  | 'invalid_answer';

/** One step of an approval, for an audit trail: asked, then granted or refused. */
export interface ApprovalDecision {
  readonly type: 'asked' | 'granted' | 'refused';
  readonly toolId: string;
  readonly server: string;
  readonly policy: ApprovalPolicy;
  readonly argsHash: string;
  /** Who called: the session's ID, when it has one. */
  readonly session: string | undefined;
  /** When, in epoch milliseconds. */
  readonly at: number;
  /** Absent on `asked`. */
  readonly reason?: ApprovalReason;
}
