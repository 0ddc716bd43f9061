// The try-it form's calls. A call runs as its login's session `dashboard:<digest>`; what it asks its caller (the
// approval policy's question, a builtin's or an upstream server's form elicitation) waits here for the logged-in operator
// who made the call, who answers it in the page: `POST api/call` answers with the call's result
// or its question, `POST api/answer` with the result or the next question.
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  runInSession,
  ToolError,
  type CallOptions,
  type RunResult,
  type Session,
} from '@toolplane/toolkit';
import { DASHBOARD_SESSION, stringField, type ApiContext } from './api.js';
import { readJsonObject, sendJson, UiError } from './http.js';

type ElicitParams = Parameters<Session['elicit']>[0];
type ElicitAnswer = Awaited<ReturnType<Session['elicit']>>;

/** Questions waiting for an operator at once, over all logins (each holds a call). */
export const MAX_QUESTIONS = 32;
/** Questions waiting at once for one login: no operator's open calls take every slot. */
export const MAX_QUESTIONS_PER_LOGIN = 8;
const MAX_ID = 300;

/** A question a try-it call asks, as the page shows it. */
interface Question {
  readonly id: string;
  /** The login that made the call: only it answers. */
  readonly owner: string;
  readonly message: string;
  readonly requestedSchema: unknown;
  /** Asked by the approval policy before the call runs. */
  readonly approval: boolean;
  readonly call: TryItCall;
  answer(result: ElicitAnswer): void;
}

/** One try-it call, from its start to its result. */
interface TryItCall {
  readonly tool: string;
  readonly controller: AbortController;
  running?: Promise<RunResult>;
  /** Wakes the request waiting for the call's next step with a question. */
  wake?: (question: Question) => void;
  queued: Question[];
}

type Step = { readonly result: RunResult } | { readonly question: Question };

/** The questions of the dashboard's try-it calls waiting for their operators. */
export class TryItQuestions {
  readonly #pending = new Map<string, Question>();
  /** How many of the pending questions each login owns. */
  readonly #owned = new Map<string, number>();

  get size(): number {
    return this.#pending.size;
  }

  /** How `call` asks its operator (`owner`): the session's `elicit`. */
  asker(call: TryItCall, owner: string): Session['elicit'] {
    return (params: ElicitParams, options) => {
      if (params.mode === 'url') {
        return Promise.reject(
          new ToolError(
            'no_delegate',
            'the dashboard answers form questions only, not URL elicitation; call the tool from an MCP client that supports it',
          ),
        );
      }
      if (this.#pending.size >= MAX_QUESTIONS) {
        return Promise.reject(
          new ToolError(
            'no_delegate',
            `${String(MAX_QUESTIONS)} questions already wait in the dashboard for an answer; answer or decline them first`,
          ),
        );
      }
      if ((this.#owned.get(owner) ?? 0) >= MAX_QUESTIONS_PER_LOGIN) {
        return Promise.reject(
          new ToolError(
            'no_delegate',
            `${String(MAX_QUESTIONS_PER_LOGIN)} questions of this login already wait for an answer; answer or decline them first`,
          ),
        );
      }
      const signal = options?.signal;
      return new Promise<ElicitAnswer>((resolve, reject) => {
        const question: Question = {
          id: randomUUID(),
          owner,
          message: params.message,
          requestedSchema: params.requestedSchema,
          approval: options?.beforeDispatch !== undefined,
          call,
          answer: (result) => {
            settle();
            resolve(result);
          },
        };
        const onAbort = (): void => {
          settle();
          reject(
            new ToolError('cancelled', 'the question was withdrawn', { cause: signal?.reason }),
          );
        };
        const settle = (): void => {
          if (!this.#pending.delete(question.id)) return;
          const owned = (this.#owned.get(owner) ?? 1) - 1;
          if (owned === 0) this.#owned.delete(owner);
          else this.#owned.set(owner, owned);
          call.queued = call.queued.filter((q) => q !== question);
          signal?.removeEventListener('abort', onAbort);
        };
        if (signal?.aborted === true) {
          onAbort();
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#pending.set(question.id, question);
        this.#owned.set(owner, (this.#owned.get(owner) ?? 0) + 1);
        if (call.wake === undefined) call.queued.push(question);
        else call.wake(question);
      });
    };
  }

  /** Takes the question `id` asked of `owner`, if it still waits. */
  take(id: string, owner: string): Question | undefined {
    const question = this.#pending.get(id);
    return question?.owner === owner ? question : undefined;
  }

  /**
   * Withdraws the questions asked of `owner` (its login ended): nobody can answer them any more,
   * so their calls are refused (an approval) or told the question was cancelled (an upstream's)
   * now, not when their time runs out.
   */
  withdraw(owner: string): void {
    for (const question of [...this.#pending.values()]) {
      if (question.owner === owner) question.answer({ action: 'cancel' });
    }
  }

  /** Withdraws every question (the dashboard is closing): their calls are refused. */
  close(): void {
    for (const question of [...this.#pending.values()]) question.answer({ action: 'cancel' });
  }
}

/**
 * The session a login's try-it calls run in, as the approval audit names it: `dashboard:` and a
 * digest of the login, never the login itself (it is half of the login's cookie).
 */
export function loginSession(login: string): string {
  const digest = createHash('sha256').update(login).digest('base64url').slice(0, 16);
  return `${DASHBOARD_SESSION}:${digest}`;
}

/**
 * `POST api/call` `{ tool, arguments }`: runs the tool as the operator `owner` and answers its
 * content blocks, or the question it asks first (`{ question }`, answered with `POST api/answer`).
 * The call is cancelled when the browser goes away while it runs.
 *
 * @throws {UiError} 400 `invalid_argument` for a body of the wrong shape, 404 `tool_not_found`;
 * the runner's `ToolError` (`validation`, `approval_denied`, …) as 400.
 */
export async function call(
  ctx: ApiContext,
  questions: TryItQuestions,
  owner: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJsonObject(req, ctx.maxBody);
  const id = stringField(body, 'tool', MAX_ID);
  const args = body.arguments === undefined ? {} : body.arguments;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new UiError(400, 'invalid_argument', '"arguments" must be a JSON object');
  }
  // An unknown ID is the index's own `tool_not_found` (404).
  const entry = ctx.toolkit.index.getTool(id);
  if (!ctx.visible(entry.tool)) {
    throw new UiError(404, 'tool_not_found', `no tool "${id}"; search the catalogue`);
  }
  const tryIt: TryItCall = { tool: id, controller: new AbortController(), queued: [] };
  const elicit = questions.asker(tryIt, owner);
  // An upstream server's own form question during the call comes to the page too; sampling
  // needs a model the dashboard does not have.
  const onUpstreamRequest: CallOptions['onUpstreamRequest'] = (request, { namespace, signal }) =>
    request.method === 'elicitation/create'
      ? elicit(request.params, { signal })
      : Promise.reject(
          new ToolError(
            'no_delegate',
            `the dashboard cannot answer ${request.method} from "${namespace}" (it has no model); call the tool from an MCP client that supports sampling`,
          ),
        );
  // As the login's own session: an approval remembered for the session is this operator's alone.
  const run = (onProgress?: (event: { progress: number }) => void) =>
    runInSession({ id: loginSession(owner), elicit }, () =>
      ctx.toolkit.callTool(id, args as Record<string, unknown>, {
        signal: tryIt.controller.signal,
        onUpstreamRequest,
        ...(onProgress === undefined ? {} : { onProgress }),
      }),
    );
  const started = performance.now();
  // Through the middleware when the toolkit has it (it records every call); else recorded here.
  const running = ctx.feed.installed
    ? run()
    : ctx.feed.observe(id, run, (r) => (r.mcpResult?.isError === true ? 'is_error' : 'ok'));
  tryIt.running = running;
  const heard = (outcome: string): void => {
    ctx.onCall?.({
      tool: id,
      namespace: entry.tool.namespace ?? '',
      outcome,
      durationMs: performance.now() - started,
      args: args as Record<string, unknown>,
    });
  };
  // Told once the call ends, whether or not a request still waits for it.
  running.then(
    (result) => {
      heard(result.mcpResult?.isError === true ? 'isError' : 'ok');
    },
    (error: unknown) => {
      heard(ToolError.isInstance(error) ? error.code : 'internal');
    },
  );
  await answerNext(tryIt, res);
}

/**
 * `POST api/answer` `{ question, action, content? }`: answers a question of the operator's own
 * call (`accept` with the form's `content`, `decline` or `cancel`), then answers as
 * `POST api/call` does: the call's result or its next question.
 *
 * @throws {UiError} 400 `invalid_argument` for a body of the wrong shape; 404 `not_found` for a
 * question that no longer waits (answered, timed out, or asked of another login).
 */
export async function answer(
  ctx: ApiContext,
  questions: TryItQuestions,
  owner: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJsonObject(req, ctx.maxBody);
  const id = stringField(body, 'question', MAX_ID);
  const action = body.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    throw new UiError(400, 'invalid_argument', '"action" must be "accept", "decline" or "cancel"');
  }
  const content = body.content;
  if (action === 'accept' && !isFormContent(content)) {
    throw new UiError(
      400,
      'invalid_argument',
      '"content" must be an object of strings, numbers, booleans and lists of strings',
    );
  }
  const question = questions.take(id, owner);
  if (question === undefined) {
    throw new UiError(
      404,
      'not_found',
      'this question no longer waits: it was answered, or its time ran out (the call was refused); call the tool again',
    );
  }
  question.answer(
    action === 'accept' ? { action, content: content as Record<string, string> } : { action },
  );
  await answerNext(question.call, res);
}

/** Answers with the call's next step; a browser gone while the call runs cancels it. */
async function answerNext(tryIt: TryItCall, res: ServerResponse): Promise<void> {
  const gone = (): void => {
    tryIt.controller.abort();
  };
  res.once('close', gone);
  let step: Step;
  try {
    step = await nextStep(tryIt);
  } finally {
    res.off('close', gone);
    tryIt.wake = undefined;
  }
  if ('question' in step) {
    const { question } = step;
    sendJson(res, 200, {
      tool: tryIt.tool,
      question: {
        id: question.id,
        message: question.message,
        requestedSchema: question.requestedSchema,
        approval: question.approval,
      },
    });
    return;
  }
  const mcp = step.result.mcpResult;
  sendJson(res, 200, {
    tool: tryIt.tool,
    isError: mcp?.isError === true,
    content: mcp?.content ?? [
      { type: 'text', text: JSON.stringify(step.result.structured, null, 2) },
    ],
    ...(mcp?.structuredContent === undefined ? {} : { structured: mcp.structuredContent }),
  });
}

/** The call's result, or the question it asks first. */
function nextStep(tryIt: TryItCall): Promise<Step> {
  const queued = tryIt.queued[0];
  if (queued !== undefined) return Promise.resolve({ question: queued });
  return new Promise<Step>((resolve, reject) => {
    tryIt.wake = (question) => {
      resolve({ question });
    };
    (tryIt.running ?? Promise.reject(new Error('no call'))).then((result) => {
      resolve({ result });
    }, reject);
  });
}

/** An elicitation answer's content: an object of primitives and lists of strings. */
function isFormContent(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (v) =>
      typeof v === 'string' ||
      typeof v === 'number' ||
      typeof v === 'boolean' ||
      (Array.isArray(v) && v.every((item) => typeof item === 'string')),
  );
}
