import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { matches } from '../call-results.js';
import type { GatewayHub } from '../hub.js';
import type { NameTable } from '../names.js';
import type { ToolItem } from '../items.js';
import {
  isAuthRefusal,
  type AuthPrompt,
  type AuthResource,
  type AuthTool,
  type GatewayAuth,
} from './gateway-auth.js';
import { verifiedOf, type HandlerExtra, type Verified } from './verified.js';

// What a caller's scopes reach, for the handlers of its requests (tools/list filtered, a call
// refused) and for the gate before dispatch (a refused call answered 403).

/** Something a request uses that a scope must reach. */
export type AccessTarget =
  | { readonly kind: 'tool'; readonly tool: AuthTool }
  | { readonly kind: 'prompt'; readonly prompt: AuthPrompt }
  | { readonly kind: 'resource'; readonly resource: AuthResource };

/** @throws the {@link GatewayAuth}'s refusal (`insufficient_scope`) when `found` does not reach `target`. */
export function requireAccess(found: Verified, target: AccessTarget): void {
  const { auth, caller } = found;
  if (target.kind === 'tool') auth.requireTool(caller, target.tool);
  else if (target.kind === 'prompt') auth.requirePrompt(caller, target.prompt);
  else auth.requireResource(caller, target.resource);
}

export function toolOf(item: ToolItem): AuthTool {
  return {
    namespace: item.namespace,
    name: item.name,
    ...(item.tool.tags === undefined ? {} : { tags: item.tool.tags }),
  };
}

/**
 * The tools, prompts and resources one JSON-RPC message uses, resolved as its handler will
 * resolve them; a name or URI that resolves to nothing is left to the handler (-32602, as
 * without OAuth).
 */
export async function targetsOf(message: unknown, hub: GatewayHub): Promise<AccessTarget[]> {
  if (typeof message !== 'object' || message === null) return [];
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (typeof params !== 'object' || params === null) return [];
  return targetsOfMethod(method, params as Record<string, unknown>, hub);
}

async function targetsOfMethod(
  method: unknown,
  params: Record<string, unknown>,
  hub: GatewayHub,
): Promise<AccessTarget[]> {
  switch (method) {
    case 'tools/call': {
      if (hub.options.mode === 'search' || typeof params.name !== 'string') return [];
      const item = (hub.toolsNow() ?? (await hub.tools())).resolve(params.name);
      return item === undefined ? [] : [{ kind: 'tool', tool: toolOf(item) }];
    }
    case 'prompts/get':
      return promptTarget(hub, params.name);
    case 'resources/read':
    case 'resources/subscribe':
      return resourceTargets(hub, [params.uri]);
    case 'completion/complete': {
      const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt') return promptTarget(hub, ref.name);
      if (ref?.type !== 'ref/resource' || typeof ref.uri !== 'string') return [];
      const found = hub.templates().find(({ template }) => template.uriTemplate === ref.uri);
      return found === undefined
        ? []
        : [{ kind: 'resource', resource: { namespace: found.namespace, uri: ref.uri } }];
    }
    case 'subscriptions/listen': {
      // 2026-07-28's resources/subscribe: updates of the URIs it names.
      const notifications = params.notifications as { resourceSubscriptions?: unknown } | undefined;
      const uris = notifications?.resourceSubscriptions;
      return Array.isArray(uris) ? resourceTargets(hub, uris) : [];
    }
    default:
      return [];
  }
}

async function promptTarget(hub: GatewayHub, name: unknown): Promise<AccessTarget[]> {
  if (typeof name !== 'string') return [];
  const item = (await hub.prompts()).resolve(name);
  return item === undefined
    ? []
    : [{ kind: 'prompt', prompt: { namespace: item.namespace, name: item.name } }];
}

async function resourceTargets(hub: GatewayHub, uris: unknown[]): Promise<AccessTarget[]> {
  const strings = uris.filter((uri): uri is string => typeof uri === 'string');
  if (strings.length === 0) return [];
  const table = await hub.resources();
  const templates = hub.templates();
  return strings.flatMap((uri): AccessTarget[] => {
    const resource = resourceOf(table.resolve(uri), templates, uri);
    return resource === undefined ? [] : [{ kind: 'resource', resource }];
  });
}

/**
 * The resource `uri` names: a listed one by its upstream URI, else the URI itself in the
 * namespace of the first template that matches it (as resources/read picks it).
 */
export function resourceOf(
  listed: { readonly namespace: string; readonly uri: string } | undefined,
  templates: readonly { readonly namespace: string; readonly template: { uriTemplate: string } }[],
  uri: string,
): AuthResource | undefined {
  if (listed !== undefined) return { namespace: listed.namespace, uri: listed.uri };
  const match = templates.find(({ template }) => matches(template.uriTemplate, uri));
  return match === undefined ? undefined : { namespace: match.namespace, uri };
}

/**
 * @throws {ProtocolError} -32600 `insufficient_scope: …` naming the scopes that would be
 * enough, when this request's caller does not reach `target` (the handlers' own check, behind
 * the gate's 403 before dispatch).
 */
export function checkAccess(extra: HandlerExtra, target: AccessTarget): void {
  const found = verifiedOf(extra);
  if (found === undefined) return;
  try {
    requireAccess(found, target);
  } catch (error) {
    if (!isAuthRefusal(error)) throw error;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `insufficient_scope: ${error.message}`,
      { error: 'insufficient_scope', scope: error.scopes.join(' ') },
    );
  }
}

/**
 * @throws {ProtocolError} as {@link checkAccess}, when this request's caller may not call `item`
 * (for calls the gate did not see: search mode's `call_tool`).
 */
export function checkToolCall(extra: HandlerExtra, item: ToolItem): void {
  checkAccess(extra, { kind: 'tool', tool: toolOf(item) });
}

/** Which prompts and resources (or templates) this request's caller may see. */
export interface AccessFilter {
  prompt(prompt: AuthPrompt): boolean;
  resource(resource: AuthResource): boolean;
}

/** The caller's view of prompts and resources; `undefined` without OAuth (nothing filtered). */
export function accessFilter(extra: HandlerExtra): AccessFilter | undefined {
  const found = verifiedOf(extra);
  if (found === undefined) return undefined;
  const { auth, caller } = found;
  return {
    prompt: (prompt) => auth.allowsPrompt(caller, prompt),
    resource: (resource) => auth.allowsResource(caller, resource),
  };
}

const MAX_CACHED_SCOPE_SETS = 64;
const visibleCache = new WeakMap<
  GatewayAuth,
  WeakMap<NameTable<ToolItem>, Map<string, ReadonlySet<string>>>
>();

/**
 * The exposed names of the tools this request's caller may see; `undefined` when the request
 * carried no verified token (no OAuth), so nothing is filtered.
 */
export async function visibleTools(
  extra: HandlerExtra,
  hub: GatewayHub,
): Promise<ReadonlySet<string> | undefined> {
  const found = verifiedOf(extra);
  if (found === undefined) return undefined;
  const table = hub.toolsNow() ?? (await hub.tools());
  // Callers with the same scopes see the same tools until the table changes: computed once.
  let byTable = visibleCache.get(found.auth);
  if (byTable === undefined) visibleCache.set(found.auth, (byTable = new WeakMap()));
  let byScopes = byTable.get(table);
  if (byScopes === undefined)
    byTable.set(table, (byScopes = new Map<string, ReadonlySet<string>>()));
  const key = [...found.caller.scopes].sort().join(' ');
  const cached = byScopes.get(key);
  if (cached !== undefined) return cached;
  const names = new Set<string>();
  for (const [name, item] of table.entries()) {
    if (found.auth.allows(found.caller, toolOf(item))) names.add(name);
  }
  // Bounded: scope combinations are few, but a caller chooses its own.
  if (byScopes.size >= MAX_CACHED_SCOPE_SETS) byScopes.clear();
  byScopes.set(key, names);
  return names;
}
