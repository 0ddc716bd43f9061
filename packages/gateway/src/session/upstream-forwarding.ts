/* eslint-disable @typescript-eslint/no-deprecated -- 2025-era features (logging, sampling, roots,
   initialize-scoped client identity), bridged for as long as clients and servers speak them */
import { randomUUID } from 'node:crypto';
import {
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from '@modelcontextprotocol/core';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  ToolError,
  type Session,
  type SessionRequestOptions,
  type UpstreamRequest,
  type UpstreamRequestContext,
  type UpstreamRequestHandler,
} from '@toolplane/toolkit';
import { createValidator, type SchemaValidator } from '@toolplane/toolmodel';
import { answeredToUpstream } from '../call-results.js';
import type { McpServerInstance } from '../sdk/gateway-server.js';
import type { CallExtra } from './state.js';
import type { RequestInput } from './round-calls.js';
import { envelopeCapabilities, envelopeClientInfo, noServerRequests, type Era } from '../eras.js';

// The sessions' tool calls in flight, by the caller token their upstream calls carry. Tokens are
// unique across every gateway in the process (a random prefix, then a count), so one handler
// serves them all; they never leave the process. A call's token is its session's token, a slash
// and a count, so a request an upstream sends after the call (roots/list) still finds the session.
export const callers = new Map<string, GatewayCall>();
const sessions = new Map<string, { readonly server: McpServerInstance; readonly era: Era }>();
const CALLER_PREFIX = randomUUID();
let count = 0;

/** Registers a session's server under a new token, unique in the process; see {@link callToken}. */
export function registerSession(server: McpServerInstance, era: Era = 'legacy'): string {
  const token = `${CALLER_PREFIX}:${++count}`;
  sessions.set(token, { server, era });
  return token;
}

export function unregisterSession(token: string): void {
  sessions.delete(token);
}

/** A new caller token for one call of the session registered as `session`. */
export function callToken(session: string): string {
  return `${session}/${++count}`;
}

/** The server of the session a caller token (a session's or one of its calls') belongs to. */
function sessionOf(caller: string): { server: McpServerInstance; era: Era } | undefined {
  const slash = caller.indexOf('/');
  return sessions.get(slash < 0 ? caller : caller.slice(0, slash));
}

/** A session's tool call in flight. */
export interface GatewayCall {
  readonly server: McpServerInstance;
  readonly extra: CallExtra;
  /** The era of the session that made the call. */
  readonly era: Era;
  /** Asks a 2026 caller for input in an `input_required` round (absent: it cannot be asked). */
  readonly requestInput?: RequestInput | undefined;
}

/**
 * Forwards an upstream's sampling or elicitation request to the session whose call caused it,
 * on that call's own response stream, and its answer back.
 */
export const forwardUpstreamRequests: UpstreamRequestHandler = {
  capabilities: { sampling: true, elicitation: true, roots: true },
  /** A 2026 caller's call parked in an input round lets go of its upstream when its retry replays it. */
  release: (caller) => callers.get(caller)?.requestInput?.release?.(),
  /**
   * The roots of the session behind `caller`: asked on the call's own stream while it runs (of a
   * 2026-07-28 caller, in an `input_required` round of its call), of the session afterwards.
   * None when no session is known or its client has no roots.
   */
  async listRoots({ caller, signal }) {
    const call = caller === undefined ? undefined : callers.get(caller);
    const known = caller === undefined ? undefined : sessionOf(caller);
    if ((call?.era ?? known?.era) === 'modern') {
      // A 2026-07-28 client has no roots to ask for outside an input_required round.
      if (call?.requestInput === undefined) return { roots: [] };
      if (clientCapabilities(call.server, call.extra, call.era)?.roots === undefined) {
        return { roots: [] };
      }
      // The rounds carry any input request; the toolkit's type names those with a 2025 result.
      const answer = await call.requestInput({
        method: 'roots/list',
      } as unknown as UpstreamRequest);
      const parsed = ListRootsResultSchema.safeParse(answer);
      if (!parsed.success) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          "the client's answer to roots/list is not a roots/list result",
        );
      }
      return parsed.data;
    }
    const server = call?.server ?? known?.server;
    if (server?.getClientCapabilities()?.roots === undefined) return { roots: [] };
    return call === undefined
      ? server.listRoots(undefined, { signal })
      : call.extra.mcpReq.send({ method: 'roots/list' }, { signal });
  },
  async handle(request, context) {
    try {
      return await forward(request, context);
    } catch (error) {
      throw answeredToUpstream(error);
    }
  },
};

/** {@link forwardUpstreamRequests}' `handle`: the request asked of the session behind its call. */
async function forward(
  request: UpstreamRequest,
  { namespace, caller, signal }: UpstreamRequestContext,
): ReturnType<UpstreamRequestHandler['handle']> {
  const call = callers.get(caller);
  if (call === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `${request.method} from "${namespace}" belongs to a call that has ended`,
    );
  }
  if (call.era === 'modern' && call.requestInput === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, noServerRequests(request.method));
  }
  const capabilities = clientCapabilities(call.server, call.extra, call.era);
  const supported =
    request.method === 'sampling/createMessage'
      ? capabilities?.sampling !== undefined
      : capabilities?.elicitation !== undefined;
  if (!supported) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `the client that made this call does not support ${request.method}`,
    );
  }
  if (call.requestInput !== undefined) {
    // The client's answer is untrusted: it goes upstream only if it is the result asked for.
    const answer = await call.requestInput(request);
    const schema =
      request.method === 'sampling/createMessage' ? CreateMessageResultSchema : ElicitResultSchema;
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `the client's answer to ${request.method} is not a ${request.method} result`,
      );
    }
    return parsed.data;
  }
  // The toolkit hands upstreams a sampling result without tool use, as it asked for one.
  return request.method === 'sampling/createMessage'
    ? call.extra.mcpReq.send(request, CreateMessageResultSchema, { signal })
    : call.extra.mcpReq.send(request, { signal });
}

/**
 * What the client that made a call declared it can do: in a 2026-07-28 request's `_meta`
 * envelope (a stdio connection pinned to 2026 has no initialize-scoped capabilities), else at
 * `initialize`.
 */
function clientCapabilities(server: McpServerInstance, extra: CallExtra, era: Era) {
  const declared = era === 'modern' ? envelopeCapabilities(extra.mcpReq.envelope) : undefined;
  return declared ?? server.getClientCapabilities();
}

/**
 * The {@link Session} of a session's tool call: who called, and requests to that client on the
 * call's own response stream, cancelled with the call.
 */
export function callerSession(
  server: McpServerInstance,
  extra: CallExtra,
  parts: Pick<Session, 'log'>,
  era: Era = 'legacy',
  flow?: {
    readonly signal: AbortSignal;
    readonly requestInput: RequestInput;
    /** The canonical ID of the call: a question asked before its dispatch names it. */
    readonly toolId?: string;
  },
): Partial<Session> {
  const capabilities = clientCapabilities(server, extra, era);
  // A 2026 call outlives the request that started it: its flow's signal cancels it.
  const callSignal = flow?.signal ?? extra.mcpReq.signal;
  /** Asks a 2026 caller in an input_required round; its answer must be the result asked for. */
  const round = async <T>(
    request: UpstreamRequest,
    schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
    options?: SessionRequestOptions,
  ): Promise<T> => {
    if (flow === undefined) throw eraRefusal(request.method);
    // Only the question about this very call, before it runs (not a nested call's).
    const beforeDispatch = flow.toolId !== undefined && options?.beforeDispatch === flow.toolId;
    const parsed = schema.safeParse(
      await flow.requestInput(request, {
        beforeDispatch,
        answerBy: options?.answerBy,
        signal: options?.signal,
      }),
    );
    if (!parsed.success) {
      throw new ToolError('execution', `the client's answer to ${request.method} is malformed`);
    }
    return parsed.data;
  };
  // Cancelled with the call, and by the builtin's own signal when it gives one.
  const ask = async <T>(
    method: string,
    options: { signal?: AbortSignal } | undefined,
    send: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> => {
    const signal =
      options?.signal === undefined ? callSignal : AbortSignal.any([callSignal, options.signal]);
    try {
      return await send(signal);
    } catch (error) {
      if (signal.aborted) {
        throw new ToolError('cancelled', `${method} was cancelled`, { cause: signal.reason });
      }
      if (ToolError.isInstance(error)) throw error;
      throw new ToolError(
        'execution',
        `the client failed ${method}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  };
  return {
    id: extra.sessionId,
    // A 2026-07-28 caller names itself in each request's envelope (a call the gateway serves
    // past the SDK has no server of its own that the SDK told).
    clientInfo:
      (era === 'modern' ? envelopeClientInfo(extra.mcpReq.envelope) : undefined) ??
      server.getClientVersion(),
    capabilities,
    log: parts.log,
    elicit: (params, options) => {
      const elicitation = capabilities?.elicitation;
      const mode = params.mode ?? 'form';
      const supported =
        elicitation !== undefined &&
        (mode === 'url'
          ? elicitation.url !== undefined
          : elicitation.form !== undefined || elicitation.url === undefined);
      if (!supported) return Promise.reject(notSupported(`${mode} elicitation`));
      if (era === 'modern' && flow === undefined) {
        return Promise.reject(eraRefusal('elicitation/create'));
      }
      return ask('elicitation/create', options, async (signal) => {
        const answer =
          era === 'modern'
            ? await round({ method: 'elicitation/create', params }, ElicitResultSchema, options)
            : await extra.mcpReq.send({ method: 'elicitation/create', params }, { signal });
        if (answer.action === 'accept' && 'requestedSchema' in params) {
          checkElicited(params.requestedSchema, answer.content ?? {});
        }
        return answer;
      });
    },
    createMessage: (params, options) => {
      const sampling = capabilities?.sampling;
      const withTools = params.tools !== undefined || params.toolChoice !== undefined;
      if (sampling === undefined) return Promise.reject(notSupported('sampling'));
      if (withTools && sampling.tools === undefined) {
        return Promise.reject(notSupported('sampling with tools'));
      }
      if (era === 'modern' && flow === undefined) {
        return Promise.reject(eraRefusal('sampling/createMessage'));
      }
      return ask('sampling/createMessage', options, (signal) =>
        era === 'modern'
          ? round(
              { method: 'sampling/createMessage', params },
              withTools ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema,
            )
          : extra.mcpReq.send({ method: 'sampling/createMessage', params }, { signal }),
      );
    },
  };
}

// Created on first use and shared: a validator caches prepared schemas.
let elicitValidator: SchemaValidator | undefined;

/** Refuses an accepted elicitation whose content breaks the schema the builtin asked with. */
function checkElicited(schema: object, content: unknown): void {
  const validator = (elicitValidator ??= createValidator());
  const result = validator.validate(schema as Record<string, unknown>, content);
  if (result.valid) return;
  const first = result.errors[0];
  throw new ToolError(
    'validation',
    `the client's elicitation answer does not match the requested schema${first === undefined ? '' : `: ${first.path || '/'} ${first.message}`}`,
    { errors: result.errors },
  );
}

/** A builtin's 2025-era request to a 2026-07-28 caller, refused. */
function eraRefusal(method: string): ToolError {
  return new ToolError('no_delegate', noServerRequests(method));
}

export function notSupported(feature: string): ToolError {
  return new ToolError(
    'no_delegate',
    `the calling client does not support ${feature} (it did not declare the capability)`,
  );
}
