/* eslint-disable @typescript-eslint/no-deprecated -- 2025-era logging, bridged into 2026's _meta logLevel */
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type InboundClassificationOutcome,
  type JSONRPCErrorResponse,
} from '@modelcontextprotocol/server';
import { jsonEqual } from '@toolplane/toolmodel';
import { MODERN_PROTOCOL_VERSION } from '@toolplane/toolmodel/wire';
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
} from '@modelcontextprotocol/server';

/** The era a session speaks: `legacy` for MCP 2025-11-25 and before, `modern` for 2026-07-28. */
export type Era = 'legacy' | 'modern';

// The MCP revision the gateway serves per request, with no session; its modules read it here.
export { MODERN_PROTOCOL_VERSION };

/**
 * Every revision the gateway speaks: 2026-07-28 (per request, answered by `server/discover`)
 * and the SDK's 2025-era ones (negotiated by `initialize`).
 */
export const GATEWAY_PROTOCOL_VERSIONS: readonly string[] = [
  MODERN_PROTOCOL_VERSION,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

/**
 * Methods of the 2025 era that 2026-07-28 removed, with what a 2026 client does instead. The SDK
 * answers them with a bare "Method not found"; the gateway says which era they belong to.
 */
const LEGACY_ONLY: Readonly<Record<string, string>> = {
  initialize: 'negotiate with server/discover; every request carries its version in _meta',
  ping: 'a 2026 request is answered or fails on its own',
  'logging/setLevel': `send the level in each request's _meta ("${LOG_LEVEL_META_KEY}")`,
  'resources/subscribe': 'open subscriptions/listen with a resourceSubscriptions filter',
  'resources/unsubscribe': 'close the subscriptions/listen stream',
};

/** The refusal of a 2025-only method asked of a 2026-07-28 session, or undefined. */
export function legacyOnlyRefusal(method: string): string | undefined {
  const instead = LEGACY_ONLY[method];
  return instead === undefined
    ? undefined
    : `${method} is a method of the 2025 era of MCP; this session speaks ${MODERN_PROTOCOL_VERSION}, which removed it (${instead})`;
}

/**
 * Whether a POST claims the 2026-07-28 era (or a later one): a message whose `_meta` names its
 * protocol version, or an `MCP-Protocol-Version` header naming a revision no 2025 client sends.
 * Without a claim a message is the 2025 era's, however malformed, and gets the gateway's own
 * answers; with one, the SDK's 2026 entry answers it (its version and header checks included).
 */
export function claimsModernEra(header: string | string[] | undefined, body: unknown): boolean {
  if (typeof header === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(header)) {
    if (header >= MODERN_PROTOCOL_VERSION) return true;
  }
  const messages: readonly unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (typeof message !== 'object' || message === null) return false;
    const params = (message as { params?: unknown }).params;
    if (typeof params !== 'object' || params === null) return false;
    const meta = (params as { _meta?: unknown })._meta;
    return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
  });
}

// The `_meta` of 2026-07-28 requests the SDK's classifier found valid, most recent first: a
// client sends the same envelope with every request, so it is checked (a zod parse) once, and a
// request after it is compared with it key by key (no string made, no garbage).
const VALID_META_LIMIT = 8;
const validMeta: object[] = [];
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** Whether `meta` equals a `_meta` found valid before, moving the one it equals to the front. */
function knownValid(meta: object): boolean {
  for (let i = 0; i < validMeta.length; i++) {
    const known = validMeta[i] as object;
    if (!jsonEqual(meta, known)) continue;
    if (i > 0) {
      validMeta.splice(i, 1);
      validMeta.unshift(known);
    }
    return true;
  }
  return false;
}

/** Whether a request's members are only JSON-RPC's (its verdict is then its `_meta`'s alone). */
function onlyRequestMembers(request: object): boolean {
  for (const member in request) if (!REQUEST_MEMBERS.has(member)) return false;
  return true;
}

/**
 * Whether `request` (a JSON-RPC request, its headers aside) is a 2026-07-28 request the SDK would
 * take: a valid `_meta` envelope naming that revision. The SDK's own classifier decides, once
 * for each distinct `_meta`.
 */
export function isModernRequest(request: unknown): boolean {
  if (typeof request !== 'object' || request === null) return false;
  const { jsonrpc, id, method, params } = request as Record<string, unknown>;
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  // Only a plain request's verdict is a matter of its _meta alone (initialize is routed apart).
  const plain =
    jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isSafeInteger(id)) &&
    typeof method === 'string' &&
    method !== 'initialize' &&
    typeof meta === 'object' &&
    meta !== null &&
    onlyRequestMembers(request);
  if (plain && knownValid(meta)) return true;
  const route = classifyInboundRequest({ httpMethod: 'POST', body: request });
  const valid =
    route.kind === 'modern' && route.classification.revision === MODERN_PROTOCOL_VERSION;
  if (valid && plain) {
    // A copy: the request's own object may be changed by whoever handles it.
    validMeta.unshift(structuredClone(meta));
    if (validMeta.length > VALID_META_LIMIT) validMeta.pop();
  }
  return valid;
}

/**
 * The answer to a request naming a 2025-era revision in its `_meta` (`2025-11-25`, say), as the
 * SDK's classifier routed it, or `undefined` for any other. The SDK's 2026 entry would refuse it
 * listing only 2026-07-28, which tells a 2025 client the gateway cannot speak its era; this keeps
 * MCP's code for a version not served (-32022) and says the truth: the 2025 revisions are served
 * in a session opened with `initialize`, 2026-07-28 per request.
 */
export function legacyClaimRefusal(
  route: InboundClassificationOutcome,
): JSONRPCErrorResponse | undefined {
  if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
  if (route.classification.era !== 'legacy') return undefined;
  const requested = route.classification.revision ?? SUPPORTED_PROTOCOL_VERSIONS.join(', ');
  return {
    jsonrpc: '2.0',
    id: route.message.id,
    error: {
      code: ProtocolErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version: ${requested} is not served per request; the gateway serves it (as every 2025 revision) in a session opened with initialize, and ${MODERN_PROTOCOL_VERSION} per request`,
      data: { supported: [...GATEWAY_PROTOCOL_VERSIONS], requested },
    },
  };
}

/** The client capabilities a 2026-07-28 request declared in its `_meta` envelope, if any. */
export function envelopeCapabilities(envelope: unknown): ClientCapabilities | undefined {
  if (typeof envelope !== 'object' || envelope === null) return undefined;
  const capabilities = (envelope as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY];
  return typeof capabilities === 'object' && capabilities !== null ? capabilities : undefined;
}

/** The client a 2026-07-28 request named in its `_meta` envelope, if any. */
export function envelopeClientInfo(envelope: unknown): Implementation | undefined {
  if (typeof envelope !== 'object' || envelope === null) return undefined;
  const info = (envelope as Record<string, unknown>)[CLIENT_INFO_META_KEY];
  return typeof info === 'object' && info !== null ? (info as Implementation) : undefined;
}

/** The log level a 2026-07-28 request asked for in its `_meta` envelope, if any. */
export function envelopeLogLevel(envelope: unknown): LoggingLevel | undefined {
  if (typeof envelope !== 'object' || envelope === null) return undefined;
  const level = (envelope as Record<string, unknown>)[LOG_LEVEL_META_KEY];
  return typeof level === 'string' ? (level as LoggingLevel) : undefined;
}

/**
 * Why a 2025-era server→client request cannot reach a 2026-07-28 caller: that era has no
 * server→client requests (it asks with `input_required` results, which the gateway does not
 * bridge yet).
 */
export function noServerRequests(method: string): string {
  return `${method} is a server-to-client request of the 2025 era of MCP; the calling client speaks ${MODERN_PROTOCOL_VERSION}, which has none, and the gateway does not bridge it to an input_required round`;
}
