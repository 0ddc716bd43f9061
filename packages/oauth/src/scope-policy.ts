import { ToolError } from '@toolplane/toolmodel';

/**
 * What one scope grants: the union of whole namespaces (their tools, prompts and resources),
 * named tools, tagged tools, named prompts and resources by URI pattern.
 */
export interface ScopeGrant {
  /** Every tool, prompt and resource of these namespaces; `*` is every namespace. */
  readonly namespaces?: readonly string[];
  /** These tools: `namespace:name`, or a bare `name` in any namespace. */
  readonly tools?: readonly string[];
  /** Every tool with at least one of these tags. */
  readonly tags?: readonly string[];
  /** These prompts: `namespace:name`, or a bare `name` in any namespace. */
  readonly prompts?: readonly string[];
  /**
   * Resources whose URI (as their server lists it, before any gateway rewriting) matches one of
   * these patterns: the URI itself, or with `*` standing for any run of characters
   * (`file:///docs/*`). A resource template is granted when a pattern matches its URI template
   * text (`file:///docs/*` matches `file:///docs/{path}`).
   */
  readonly resources?: readonly string[];
}

/** The fields of a tool a {@link ScopePolicy} looks at. */
export interface ScopedTool {
  readonly namespace: string;
  readonly name: string;
  readonly tags?: readonly string[];
}

/** The fields of a prompt a {@link ScopePolicy} looks at. */
export interface ScopedPrompt {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The fields of a resource a {@link ScopePolicy} looks at: its namespace and its URI as its
 * server lists it (or, for a resource template, its URI template).
 */
export interface ScopedResource {
  readonly namespace: string;
  readonly uri: string;
}

/**
 * Decides which tools, prompts and resources a caller's scopes let it see and use; see
 * {@link createScopePolicy}.
 */
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
  /** Whether a caller holding `granted` may see and get `prompt` (and complete its arguments). */
  allowsPrompt(granted: readonly string[], prompt: ScopedPrompt): boolean;
  /** The scopes that would each be enough for `prompt`. */
  scopesForPrompt(prompt: ScopedPrompt): string[];
  /** Whether a caller holding `granted` may see, read and subscribe to `resource`. */
  allowsResource(granted: readonly string[], resource: ScopedResource): boolean;
  /** The scopes that would each be enough for `resource`. */
  scopesForResource(resource: ScopedResource): string[];
}

// RFC 6749 §3.3 scope-token: printable ASCII except space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const GRANT_KEYS = ['namespaces', 'tools', 'tags', 'prompts', 'resources'] as const;
type GrantKey = (typeof GRANT_KEYS)[number];

interface CompiledGrant {
  readonly allNamespaces: boolean;
  readonly namespaces: ReadonlySet<string>;
  readonly ids: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
  readonly tags: ReadonlySet<string>;
  readonly promptIds: ReadonlySet<string>;
  readonly promptNames: ReadonlySet<string>;
  readonly uris: ReadonlySet<string>;
  readonly uriPatterns: readonly (readonly string[])[];
}

/**
 * Compiles `scopes` (`{ <scope>: { namespaces?, tools?, tags?, prompts?, resources? } }`) into a
 * policy. A caller may see and use a tool, prompt or resource when one of its scopes grants it;
 * a caller with none of the mapped scopes sees none. With no scopes mapped at all, the policy
 * restricts nothing.
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
  // A caller's scopes are one array for all its checks (a whole list): merged once.
  const mergedFor = (granted: readonly string[]): CompiledGrant => {
    let grant = merged.get(granted);
    if (grant === undefined) {
      grant = merge(granted.flatMap((scope) => compiled.get(scope) ?? []));
      merged.set(granted, grant);
    }
    return grant;
  };
  const check =
    <T>(grants: (grant: CompiledGrant, target: T) => boolean) =>
    (granted: readonly string[], target: T): boolean =>
      compiled.size === 0 || grants(mergedFor(granted), target);
  const enough =
    <T>(grants: (grant: CompiledGrant, target: T) => boolean) =>
    (target: T): string[] =>
      names.filter((scope) => {
        const grant = compiled.get(scope);
        return grant !== undefined && grants(grant, target);
      });
  return {
    restricts: compiled.size > 0,
    scopes: names,
    allows: check(grantsTool),
    scopesFor: enough(grantsTool),
    allowsPrompt: check(grantsPrompt),
    scopesForPrompt: enough(grantsPrompt),
    allowsResource: check(grantsResource),
    scopesForResource: enough(grantsResource),
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
    promptIds: union((g) => g.promptIds),
    promptNames: union((g) => g.promptNames),
    uris: union((g) => g.uris),
    uriPatterns: grants.flatMap((g) => g.uriPatterns),
  };
}

function grantsNamespace(grant: CompiledGrant, namespace: string): boolean {
  return grant.allNamespaces || grant.namespaces.has(namespace);
}

function grantsPrompt(grant: CompiledGrant, prompt: ScopedPrompt): boolean {
  return (
    grantsNamespace(grant, prompt.namespace) ||
    grant.promptNames.has(prompt.name) ||
    grant.promptIds.has(`${prompt.namespace}:${prompt.name}`)
  );
}

function grantsResource(grant: CompiledGrant, resource: ScopedResource): boolean {
  return (
    grantsNamespace(grant, resource.namespace) ||
    grant.uris.has(resource.uri) ||
    grant.uriPatterns.some((pattern) => globMatches(pattern, resource.uri))
  );
}

function grantsTool(grant: CompiledGrant, tool: ScopedTool): boolean {
  if (grantsNamespace(grant, tool.namespace) || grant.names.has(tool.name)) {
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
  const known = GRANT_KEYS.join(', ');
  if (typeof grant !== 'object' || grant === null || Array.isArray(grant)) {
    throw new ToolError('invalid_config', `${where} must be an object with ${known}`);
  }
  for (const key of Object.keys(grant)) {
    if (!(GRANT_KEYS as readonly string[]).includes(key)) {
      throw new ToolError(
        'invalid_config',
        `${where}: unknown key ${JSON.stringify(key)} (known: ${known})`,
      );
    }
  }
  const list = (key: GrantKey): readonly string[] => {
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
  const prompts = list('prompts');
  const resources = list('resources');
  return {
    allNamespaces: namespaces.includes('*'),
    namespaces: new Set(namespaces),
    ids: new Set(tools.filter((t) => t.includes(':'))),
    names: new Set(tools.filter((t) => !t.includes(':'))),
    tags: new Set(list('tags')),
    promptIds: new Set(prompts.filter((p) => p.includes(':'))),
    promptNames: new Set(prompts.filter((p) => !p.includes(':'))),
    uris: new Set(resources.filter((r) => !r.includes('*'))),
    uriPatterns: resources.filter((r) => r.includes('*')).map(uriPattern),
  };
}

/**
 * A `*` glob as its literal segments. Matched by {@link globMatches} without a regular
 * expression: a client picks the URI, and `.*` runs can backtrack for long on a long one.
 */
function uriPattern(pattern: string): readonly string[] {
  return pattern.split('*');
}

/** Leftmost-first matching of `*`-only globs: the first segment a prefix, the last a suffix. */
function globMatches(segments: readonly string[], text: string): boolean {
  const first = segments[0] ?? '';
  const last = segments[segments.length - 1] ?? '';
  if (text.length < first.length + last.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const segment = segments[i] ?? '';
    const found = text.indexOf(segment, at);
    if (found === -1 || found + segment.length > end) return false;
    at = found + segment.length;
  }
  return true;
}
