import { createHash } from 'node:crypto';
import {
  canonicalJson,
  checkDuration,
  optionKeys,
  raceAbort,
  refuseUnknownOptions,
  ToolError,
  type Tool,
} from '@toolplane/toolmodel';
import type { Middleware, ToolCall } from '../types.js';
import { handedOn } from '../handed-on.js';
import { showArgs } from './display.js';
import type { ApprovalDecision, ApprovalReason } from './decision.js';
import { compileRules, type ApprovalPolicy, type ApprovalRules } from './policy.js';

export type { ApprovalDecision, ApprovalReason } from './decision.js';

/** Who is calling, as far as an approval cares: a stable ID, or none (then nothing is remembered). */
export interface ApprovalSession {
  readonly id: string | undefined;
}

/** One call waiting for a person's answer, as {@link ApprovalOptions.ask} receives it. */
export interface ApprovalRequest {
  /** The call itself (tool, backend, validated arguments). */
  readonly call: ToolCall;
  readonly toolId: string;
  /** The MCP server that would run it, or the backend kind for local and provider tools. */
  readonly server: string;
  /** The rule that asked. */
  readonly policy: ApprovalPolicy;
  /** SHA-256 (base64url) of the arguments' canonical JSON: the decision is bound to it. */
  readonly argsHash: string;
  /** The arguments for a person to read: indented JSON, control characters escaped, bounded. */
  readonly argsText: string;
  /** Aborts when the call is cancelled or `timeoutMs` passes: stop asking then. */
  readonly signal: AbortSignal;
  /**
   * When `timeoutMs` passes, in ms since the epoch (`Date.now()`'s clock): an answer given after
   * it is no answer, for an `ask` that hands the question on (a gateway's retried round).
   */
  readonly deadline?: number;
}

/** A person's answer, in MCP elicitation's words; anything else refuses the call. */
export type ApprovalAnswer = 'accept' | 'decline' | 'cancel';

/** Options of {@link approval}. */
export interface ApprovalOptions<
  S extends ApprovalSession = ApprovalSession,
> extends ApprovalRules {
  /** Ask for tools whose annotations say `destructiveHint: true` (default `true`). */
  readonly destructive?: boolean;
  /** Ask for tools that say neither `readOnlyHint` nor `destructiveHint` (default `false`). */
  readonly unannotated?: boolean;
  /** `namespace:tool` globs (picomatch) of tools that always ask. */
  readonly tools?: readonly string[];
  /** `namespace:tool` globs of tools that never ask; wins over every other rule. */
  readonly except?: readonly string[];
  /** How long a person has to answer, in milliseconds (default 120 000); then the call is refused. */
  readonly timeoutMs?: number;
  /**
   * `'never'` (default): every call that needs approval asks. `'session'`: a grant is kept for
   * the rest of the caller's session, for the same tool with the same arguments only.
   */
  readonly remember?: 'never' | 'session';
  /** Asks a person; resolves to their {@link ApprovalAnswer}. A rejection refuses the call. */
  readonly ask: (request: ApprovalRequest, session: S) => Promise<ApprovalAnswer>;
  /** Who is calling (default: nobody in particular, so grants are never remembered). */
  readonly session?: (call: ToolCall) => S;
  /**
   * Receives every asked, granted and refused step; what it throws is ignored. A call's own steps
   * also go to its {@link ToolCall.onApproval}, when a middleware outside this one set it.
   */
  readonly onDecision?: (decision: ApprovalDecision) => void;
  /** Clock in epoch milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/** The default `timeoutMs`: two minutes for a person to read and answer. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

const NO_APPROVAL = 0;
// Remembered grants are bounded: the oldest session's go first, then a session's oldest grant.
const MAX_SESSIONS = 10_000;
const MAX_GRANTS_PER_SESSION = 1_000;
const anonymous: ApprovalSession = Object.freeze({ id: undefined });

function serverOf(call: ToolCall): string {
  return call.backend.kind === 'mcp' ? call.backend.mcp.serverName : call.backend.kind;
}

function hashArgs(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('base64url');
}

const WHY: Record<ApprovalReason, string> = {
  accepted: 'was approved',
  remembered: 'was approved earlier in this session',
  declined: 'the person asked declined it',
  cancelled: 'the person asked cancelled the request',
  timeout: 'nobody answered in time',
  unavailable: 'nobody could be asked',
  invalid_answer: 'the answer was not a valid approval',
};

/** The error a refused call fails with: which policy refused it, why, and how to allow it. */
function refusal(request: ApprovalRequest, reason: ApprovalReason, cause?: unknown): ToolError {
  const { toolId, policy } = request;
  // Our own errors say what went wrong in words meant for the caller (a client without
  // elicitation, say); foreign ones are kept as the cause only.
  const detail = ToolError.isInstance(cause) ? ` (${cause.message})` : '';
  const rule = policy.startsWith('tools:')
    ? `it matches approval.tools "${policy.slice(6)}"`
    : `approval.${policy} is on`;
  return new ToolError(
    'approval_denied',
    `tool "${toolId}" needs approval (${rule}) and did not get it: ${WHY[reason]}${detail}; the call did not run. Approve it when asked, or allow it without asking by adding "${toolId}" to approval.except`,
    {
      toolId,
      backend: request.call.backend,
      op: 'execute',
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

const KNOWN = optionKeys<ApprovalOptions>({
  destructive: true,
  unannotated: true,
  tools: true,
  except: true,
  timeoutMs: true,
  remember: true,
  ask: true,
  session: true,
  onDecision: true,
  now: true,
});

/**
 * Asks a person before a call runs, for the tools a policy names: destructive ones (by their
 * annotations), unannotated ones, or those matching `tools` globs, minus `except`. The call runs
 * once on `accept`; on anything else (decline, cancel, a timeout, a failing or missing `ask`, an
 * answer that is not one of the three) it does not run and fails with `approval_denied`. A grant
 * is bound to the tool, the arguments' canonical JSON and the caller's session; with
 * `remember: 'session'` it is reused for the same call in the same session, never across
 * sessions.
 *
 * Which rule applies to a tool is worked out once per tool definition, so a call that needs no
 * approval costs one map lookup.
 *
 * @throws {ToolError} `invalid_argument` for an unknown option, a bad pattern, `timeoutMs` or
 * `remember`.
 */
export function approval<S extends ApprovalSession = ApprovalSession>(
  options: ApprovalOptions<S>,
): Middleware {
  refuseUnknownOptions(options, KNOWN, 'approval');
  const decide = compileRules(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  checkDuration(timeoutMs, 'approval({ timeoutMs })');
  const remember: string = options.remember ?? 'never';
  // Options come from config files too, typed or not.
  if (remember !== 'never' && remember !== 'session') {
    throw new ToolError(
      'invalid_argument',
      `approval({ remember }) must be "never" or "session", got ${JSON.stringify(remember)}`,
    );
  }
  if (typeof options.ask !== 'function') {
    throw new ToolError(
      'invalid_argument',
      'approval({ ask }) must be a function that asks a person',
    );
  }
  const { ask, onDecision } = options;
  const sessionOf = options.session ?? (() => anonymous as S);
  const now = options.now ?? Date.now;
  // Per tool definition: a changed definition is a new object, so it is decided afresh.
  const policies = new WeakMap<Tool, ApprovalPolicy | typeof NO_APPROVAL>();
  // Grants kept for `remember: 'session'`: session ID → `toolId\0argsHash`.
  const granted = new Map<string, Set<string>>();

  const emit = (
    type: ApprovalDecision['type'],
    request: ApprovalRequest,
    session: string | undefined,
    reason?: ApprovalReason,
  ): void => {
    const { onApproval } = request.call;
    if (onDecision === undefined && onApproval === undefined) return;
    const decision: ApprovalDecision = {
      type,
      toolId: request.toolId,
      server: request.server,
      policy: request.policy,
      argsHash: request.argsHash,
      session,
      at: now(),
      ...(reason === undefined ? {} : { reason }),
    };
    for (const hear of [onDecision, onApproval]) {
      try {
        hear?.(decision);
      } catch {
        // A failing audit sink or live log must not decide a call.
      }
    }
  };

  const approve = async (call: ToolCall, policy: ApprovalPolicy): Promise<void> => {
    const session = sessionOf(call);
    const who = session.id;
    const argsHash = hashArgs(call.args);
    const key = `${call.toolId}\u0000${argsHash}`;
    const timer = new AbortController();
    const signal =
      call.signal === undefined ? timer.signal : AbortSignal.any([call.signal, timer.signal]);
    const request: ApprovalRequest = {
      call,
      toolId: call.toolId,
      server: serverOf(call),
      policy,
      argsHash,
      argsText: showArgs(call.args),
      signal,
      deadline: Date.now() + timeoutMs,
    };
    if (remember === 'session' && who !== undefined && granted.get(who)?.has(key) === true) {
      emit('granted', request, who, 'remembered');
      return;
    }
    emit('asked', request, who);
    const timeout = setTimeout(() => {
      timer.abort(new ToolError('timeout', `no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    let answer: unknown;
    try {
      answer = await raceAbort(
        Promise.resolve().then(() => ask(request, session)),
        signal,
      );
    } catch (error) {
      // Ended for its retry to run it again (a gateway's `input_required` round): nobody refused
      // it, the instance that gets the retry asks and decides, so no refusal is told here.
      if (handedOn(call.signal)) {
        throw new ToolError(
          'cancelled',
          `the call of "${call.toolId}" was handed on to its retry, which asks for approval again`,
          { toolId: call.toolId, backend: call.backend, op: 'execute', cause: call.signal?.reason },
        );
      }
      // An ask that throws `validation` got an answer that is not one (a form that breaks its
      // schema); any other failure means nobody could be asked.
      const reason: ApprovalReason =
        call.signal?.aborted === true
          ? 'cancelled'
          : timer.signal.aborted
            ? 'timeout'
            : ToolError.isInstance(error) && error.code === 'validation'
              ? 'invalid_answer'
              : 'unavailable';
      emit('refused', request, who, reason);
      if (call.signal?.aborted === true) {
        throw new ToolError(
          'cancelled',
          `the call of "${call.toolId}" was cancelled while it waited for approval`,
          {
            toolId: call.toolId,
            backend: call.backend,
            op: 'execute',
            cause: call.signal.reason,
          },
        );
      }
      throw refusal(request, reason, error);
    } finally {
      clearTimeout(timeout);
    }
    if (answer !== 'accept') {
      const reason: ApprovalReason =
        answer === 'decline' ? 'declined' : answer === 'cancel' ? 'cancelled' : 'invalid_answer';
      emit('refused', request, who, reason);
      throw refusal(request, reason);
    }
    emit('granted', request, who, 'accepted');
    if (remember === 'session' && who !== undefined) {
      let keys = granted.get(who);
      if (keys === undefined) {
        granted.set(who, (keys = new Set()));
        if (granted.size > MAX_SESSIONS) granted.delete(granted.keys().next().value as string);
      }
      keys.add(key);
      if (keys.size > MAX_GRANTS_PER_SESSION) keys.delete(keys.values().next().value as string);
    }
  };

  return (next) => (call) => {
    let policy = policies.get(call.tool);
    if (policy === undefined) {
      policy = decide(call.tool) ?? NO_APPROVAL;
      policies.set(call.tool, policy);
    }
    if (policy === NO_APPROVAL) return next(call);
    return approve(call, policy).then(() => next(call));
  };
}
