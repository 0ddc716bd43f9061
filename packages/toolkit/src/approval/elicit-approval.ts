import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { ToolError } from '@toolplane/toolmodel';
import {
  approval,
  boundedText,
  type ApprovalAnswer,
  type ApprovalOptions,
  type ApprovalRequest,
  type Middleware,
} from '@toolplane/toolrun';
import { getSession, type Session } from '../session.js';

/**
 * `createToolkit({ approval })`: which calls a person approves first (see toolrun's
 * `approval`). Without `ask`, the toolkit asks the calling client through MCP elicitation (a form
 * showing the tool, its server and its arguments; accept or decline), which is what a gateway
 * serves; give `ask` to use a UI of your own.
 */
export type ToolkitApprovalOptions = Omit<ApprovalOptions<Session>, 'ask' | 'session'> & {
  readonly ask?: ApprovalOptions<Session>['ask'];
};

/** The form field a person ticks to approve; an accepted form without it set is no approval. */
export const APPROVE_FIELD = 'approve';

/** The elicitation that asks for one call: the tool, its server, the policy and the arguments. */
export function approvalForm(request: ApprovalRequest): ElicitRequestFormParams {
  const tool = boundedText(request.toolId, 200);
  return {
    mode: 'form',
    message: [
      `Approve a call to tool "${tool}" ${whereItRuns(request)}?`,
      `It needs approval because of the policy ${boundedText(request.policy, 240)}.`,
      `Arguments (SHA-256 ${request.argsHash}):`,
      request.argsText,
      'Accept with "approve" ticked to run this call once; decline to stop it.',
    ].join('\n'),
    requestedSchema: {
      type: 'object',
      properties: {
        [APPROVE_FIELD]: {
          type: 'boolean',
          title: `Run ${tool}`,
          description: 'Tick to run this call once with the arguments shown.',
        },
      },
      required: [APPROVE_FIELD],
    },
  };
}

/** Where the call would run, for the form: its MCP server, this gateway, or a provider. */
function whereItRuns(request: ApprovalRequest): string {
  const { backend } = request.call;
  if (backend.kind === 'local') return 'run by the gateway itself';
  if (backend.kind === 'provider') {
    return `through provider "${boundedText(backend.provider.providerId, 200)}"`;
  }
  return `on server "${boundedText(request.server, 200)}"`;
}

/**
 * Asks the session's client with {@link approvalForm}. An accept whose form does not say
 * `approve: true` is no approval: `approve: false` declines, anything else is an invalid answer.
 */
export async function elicitApproval(
  request: ApprovalRequest,
  session: Session,
): Promise<ApprovalAnswer> {
  // Asked before the call is dispatched: a gateway fleet may replay it up to here elsewhere.
  const answer = await session.elicit(approvalForm(request), {
    signal: request.signal,
    beforeDispatch: request.toolId,
    ...(request.deadline === undefined ? {} : { answerBy: request.deadline }),
  });
  if (answer.action !== 'accept') return answer.action;
  const approve = answer.content?.[APPROVE_FIELD];
  if (approve === true) return 'accept';
  if (approve === false) return 'decline';
  throw new ToolError('validation', `the approval form came back without "${APPROVE_FIELD}" set`);
}

/** The toolkit's approval middleware: toolrun's, asking the current session. */
export function toolkitApproval(options: ToolkitApprovalOptions): Middleware {
  return approval<Session>({ ...options, ask: options.ask ?? elicitApproval, session: getSession });
}
