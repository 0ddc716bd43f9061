import type { IncomingHttpHeaders } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { SessionAuth } from '@toolplane/toolkit';
import type { GatewayAuth, GatewayCaller } from './gateway-auth.js';

/** A request's verified caller and the policy that judged it. */
export interface Verified {
  readonly auth: GatewayAuth;
  readonly caller: GatewayCaller;
}

/**
 * Keyed by the request's headers object from authentication until the messages are dispatched;
 * then by the AuthInfo the SDK hands every handler as `ctx.http.authInfo`.
 */
export const verifiedByHeaders = new WeakMap<IncomingHttpHeaders, Verified>();
export const verifiedByInfo = new WeakMap<AuthInfo, Verified>();

/** The request a handler serves, as the SDK hands it over. */
export interface HandlerExtra {
  readonly http?: { readonly authInfo?: AuthInfo } | undefined;
}

/** The verified caller of the request a handler serves; `undefined` without OAuth. */
export function verifiedOf(extra: HandlerExtra): Verified | undefined {
  const info = extra.http?.authInfo;
  return info === undefined ? undefined : verifiedByInfo.get(info);
}

/** The caller as `getSession().auth` shows it to tools; `undefined` without OAuth. */
export function sessionAuth(extra: HandlerExtra): SessionAuth | undefined {
  const caller = verifiedOf(extra)?.caller;
  if (caller === undefined) return undefined;
  return {
    subject: caller.subject,
    clientId: caller.clientId,
    scopes: caller.scopes,
    issuer: caller.issuer,
    expiresAt: caller.expiresAt,
  };
}

/**
 * One string naming the verified caller of a request (its issuer, subject and client), the same
 * for every request of that caller; `undefined` without OAuth. What a request state and a 2025
 * session are bound to, and what a 2026-07-28 caller's searches and calls are linked by for
 * learning from use.
 */
export function callerKey(extra: HandlerExtra): string | undefined {
  const caller = verifiedOf(extra)?.caller;
  return caller === undefined ? undefined : keyOfCaller(caller);
}

/**
 * {@link callerKey} of `caller`. JSON of the three parts, so that no two callers share a key
 * whatever their subject and client contain. The gate refuses a caller that has neither
 * ({@link identifies}): such a key would name everyone whose token names no one.
 */
export function keyOfCaller(caller: GatewayCaller): string {
  return JSON.stringify([caller.issuer, caller.subject ?? null, caller.clientId ?? null]);
}

/** Whether `caller` names someone: a subject or a client (an empty string names no one). */
export function identifies(caller: GatewayCaller): boolean {
  return (caller.subject ?? '') !== '' || (caller.clientId ?? '') !== '';
}
