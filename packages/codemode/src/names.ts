import type { ToolEntry } from '@toolplane/toolindex';
import type { ApiTool } from './protocol.js';

/** The namespace object of tools that have no namespace: `tools._.<name>`. */
export const NO_NAMESPACE = '_';

/**
 * A namespace or tool name as a JavaScript identifier, by one rule: every character other than
 * `A–Z a–z 0–9 _ $` becomes `_`, and a leading digit gets a `_` in front (`get-sum` → `get_sum`,
 * `2fa` → `_2fa`). Reserved words stay as they are: they are legal property names
 * (`tools.fs.delete(...)`).
 */
export function identifierOf(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_$]/g, '_');
  if (safe === '') return '_';
  return /^[0-9]/.test(safe) ? `_${safe}` : safe;
}

/**
 * Member names no tool gets: `await` calls the `then` of any object it is given, so a namespace
 * object with a tool called `then` would be taken for a promise (`await tools.ns`, or an async
 * function returning `tools.ns`, would call the tool with resolve/reject and never settle). Such
 * a tool is named as if `then` were another tool's already: `then_2`. A namespace called `then`
 * keeps its name: `tools.then` is an object, never called.
 */
export const RESERVED_TOOL_NAMES: readonly string[] = ['then'];

/** `base`, or `base_2`, `base_3`, … — the first not in `taken` (which it is added to). */
function unique(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${String(n)}`;
  taken.add(name);
  return name;
}

/**
 * Where each tool sits in the program's API, `tools.<namespace>.<name>`: both made identifiers by
 * {@link identifierOf}; when two tools (or two namespaces) come out the same, the later one in
 * canonical-ID order gets `_2` (then `_3`, …) appended, and a tool whose name would be one of
 * {@link RESERVED_TOOL_NAMES} gets it as though another tool had that name (`then` → `then_2`).
 */
export function apiTools(entries: readonly ToolEntry[]): ApiTool[] {
  const sorted = [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const namespaces = new Map<string, string>();
  const takenNamespaces = new Set<string>();
  const takenNames = new Map<string, Set<string>>();
  return sorted.map((entry) => {
    const source = entry.tool.namespace ?? '';
    let namespace = namespaces.get(source);
    if (namespace === undefined) {
      namespace = unique(source === '' ? NO_NAMESPACE : identifierOf(source), takenNamespaces);
      namespaces.set(source, namespace);
      takenNames.set(namespace, new Set(RESERVED_TOOL_NAMES));
    }
    const name = unique(identifierOf(entry.tool.name), takenNames.get(namespace) ?? new Set());
    return { namespace, name, id: entry.id };
  });
}

// One member of a path under `tools`: `.name`, or `["name"]` / `['name']` (no escapes).
const MEMBER = String.raw`(?:\s*\.\s*([A-Za-z_$][\w$]*)|\s*\[\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)')\s*\])`;
// `tools.<namespace>` and `tools.<namespace>.<name>` as a program spells them, with dots or
// with brackets and a string (`tools.github["create-issue"]`).
const TOOL_PATH = new RegExp(String.raw`(?<![\w$.])tools${MEMBER}(?:${MEMBER})?`, 'g');

/** `tools` followed by `members`, each written as a program would: dotted when it can be. */
function pathOf(...members: string[]): string {
  return `tools${members
    .map((member) =>
      /^[A-Za-z_$][\w$]*$/.test(member) ? `.${member}` : `[${JSON.stringify(member)}]`,
    )
    .join('')}`;
}

/** At most `count` of `names`, and how many more there are. */
function some(names: readonly string[], count = 8): string {
  const shown = names.slice(0, count).join(', ');
  return names.length > count ? `${shown}, … ${String(names.length - count)} more` : shown;
}

/** The hint for a tool or namespace named as its server spells it, not as the API does. */
function respelled(written: string, api: string): string {
  return `${written} is ${api} in this API: names are made JavaScript identifiers (every character other than letters, digits, _ and $ becomes _)`;
}

/**
 * What `line` of a program names under `tools` that the API does not have, as a sentence to add
 * to the error it failed with: QuickJS says only "not a function" (or "cannot read property 'x'
 * of undefined") for `tools.ns.missing()`, and the API's objects must stay plain, so that
 * `typeof tools.ns.missing` is still "undefined". Undefined when the line names nothing missing.
 */
export function missingToolHint(line: string, api: readonly ApiTool[]): string | undefined {
  const byNamespace = new Map<string, string[]>();
  for (const { namespace, name } of api) {
    const names = byNamespace.get(namespace) ?? [];
    names.push(name);
    byNamespace.set(namespace, names);
  }
  for (const match of line.matchAll(TOOL_PATH)) {
    const namespace = match[1] ?? match[2] ?? match[3] ?? '';
    const name = match[4] ?? match[5] ?? match[6];
    const names = byNamespace.get(namespace);
    if (names === undefined) {
      const spelled = identifierOf(namespace);
      if (byNamespace.has(spelled)) return respelled(pathOf(namespace), pathOf(spelled));
      const known = [...byNamespace.keys()];
      return `${pathOf(namespace)} is not a namespace of this API (${known.length === 0 ? 'no tool is allowed' : `it has ${some(known)}`}); search(query) finds tools and where to call them`;
    }
    if (name !== undefined && !names.includes(name)) {
      const spelled = identifierOf(name);
      if (names.includes(spelled)) {
        return respelled(pathOf(namespace, name), pathOf(namespace, spelled));
      }
      return `${pathOf(namespace, name)} is not a tool of this API (${pathOf(namespace)} has ${some(names)}); search(query) finds tools and where to call them`;
    }
  }
  return undefined;
}
