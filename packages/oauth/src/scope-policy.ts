import { ToolError } from '@toolplane/toolmodel';

/** What one scope grants: the union of whole namespaces, named tools and tagged tools. */
export interface ScopeGrant {
  /** Every tool of these namespaces; `*` is every namespace. */
  readonly namespaces?: readonly string[];
  /** These tools: `namespace:name`, or a bare `name` in any namespace. */
  readonly tools?: readonly string[];
  /** Every tool with at least one of these tags. */
  readonly tags?: readonly string[];
}

/** The fields of a tool a {@link ScopePolicy} looks at. */
export interface ScopedTool {
  readonly namespace: string;
  readonly name: string;
  readonly tags?: readonly string[];
}

/** Decides which tools a caller's scopes let it see and call; see {@link createScopePolicy}. */
export interface ScopePolicy {
  /** Whether the policy maps any scope at all (without one, every authenticated caller sees all). */
  readonly restricts: boolean;
  /** The mapped scopes, sorted, as protected resource metadata lists them. */
  readonly scopes: readonly string[];
  /**
   * Whether a caller holding `granted` may see and call `tool`. `granted` is read once per array
   * (a caller's scopes, merged for all its checks): do not change it in place.
   */
  allows(granted: readonly string[], tool: ScopedTool): boolean;
  /** The scopes that would each be enough for `tool` (empty when none grants it). */
  scopesFor(tool: ScopedTool): string[];
}

// RFC 6749 §3.3 scope-token: printable ASCII except space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const GRANT_KEYS = new Set(['namespaces', 'tools', 'tags']);

interface CompiledGrant {
  readonly allNamespaces: boolean;
  readonly namespaces: ReadonlySet<string>;
  readonly ids: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
  readonly tags: ReadonlySet<string>;
}

/**
 * Compiles `scopes` (`{ <scope>: { namespaces?, tools?, tags? } }`) into a policy. A caller may
 * see and call a tool when one of its scopes grants it; a caller with none of the mapped scopes
 * sees no tools. With no scopes mapped at all, the policy restricts nothing.
 *
 * @throws {ToolError} `invalid_config` for a scope name that is not an RFC 6749 scope token, a
 * grant that is not an object, an unknown key in a grant, or a list that is not of strings.
 */
export function createScopePolicy(
  scopes: Readonly<Record<string, ScopeGrant>> | undefined,
): ScopePolicy {
  const compiled = new Map<string, CompiledGrant>();
  for (const [scope, grant] of Object.entries(scopes ?? {})) {
    if (!SCOPE_TOKEN.test(scope)) {
      throw new ToolError(
        'invalid_config',
        `auth.scopes: ${JSON.stringify(scope)} is not a valid scope name (printable ASCII, no spaces, quotes or backslashes)`,
      );
    }
    compiled.set(scope, compile(scope, grant));
  }
  const names = [...compiled.keys()].sort();
  const merged = new WeakMap<readonly string[], CompiledGrant>();
  const grants = (tool: ScopedTool) =>
    names.filter((scope) => {
      const grant = compiled.get(scope);
      return grant !== undefined && grantsTool(grant, tool);
    });
  return {
    restricts: compiled.size > 0,
    scopes: names,
    allows(granted, tool) {
      if (compiled.size === 0) return true;
      // A caller's scopes are one array for all its checks (a whole tools/list): merged once.
      let grant = merged.get(granted);
      if (grant === undefined) {
        grant = merge(granted.flatMap((scope) => compiled.get(scope) ?? []));
        merged.set(granted, grant);
      }
      return grantsTool(grant, tool);
    },
    scopesFor: grants,
  };
}

/** One grant that grants what any of `grants` does. */
function merge(grants: readonly CompiledGrant[]): CompiledGrant {
  if (grants.length === 1 && grants[0] !== undefined) return grants[0];
  const union = (pick: (g: CompiledGrant) => ReadonlySet<string>) =>
    new Set(grants.flatMap((g) => [...pick(g)]));
  return {
    allNamespaces: grants.some((g) => g.allNamespaces),
    namespaces: union((g) => g.namespaces),
    ids: union((g) => g.ids),
    names: union((g) => g.names),
    tags: union((g) => g.tags),
  };
}

function grantsTool(grant: CompiledGrant, tool: ScopedTool): boolean {
  if (grant.allNamespaces || grant.namespaces.has(tool.namespace) || grant.names.has(tool.name)) {
    return true;
  }
  if (grant.ids.size > 0 && grant.ids.has(`${tool.namespace}:${tool.name}`)) return true;
  if (grant.tags.size > 0 && tool.tags !== undefined) {
    for (const tag of tool.tags) if (grant.tags.has(tag)) return true;
  }
  return false;
}

function compile(scope: string, grant: unknown): CompiledGrant {
  const where = `auth.scopes.${scope}`;
  if (typeof grant !== 'object' || grant === null || Array.isArray(grant)) {
    throw new ToolError(
      'invalid_config',
      `${where} must be an object with namespaces, tools and/or tags`,
    );
  }
  for (const key of Object.keys(grant)) {
    if (!GRANT_KEYS.has(key)) {
      throw new ToolError(
        'invalid_config',
        `${where}: unknown key ${JSON.stringify(key)} (known: namespaces, tools, tags)`,
      );
    }
  }
  const list = (key: 'namespaces' | 'tools' | 'tags'): readonly string[] => {
    const value = (grant as Record<string, unknown>)[key];
    if (value === undefined) return [];
    if (
      !Array.isArray(value) ||
      !value.every((v): v is string => typeof v === 'string' && v !== '')
    ) {
      throw new ToolError('invalid_config', `${where}.${key} must be a list of non-empty strings`);
    }
    return value;
  };
  const namespaces = list('namespaces');
  const tools = list('tools');
  return {
    allNamespaces: namespaces.includes('*'),
    namespaces: new Set(namespaces),
    ids: new Set(tools.filter((t) => t.includes(':'))),
    names: new Set(tools.filter((t) => !t.includes(':'))),
    tags: new Set(list('tags')),
  };
}
