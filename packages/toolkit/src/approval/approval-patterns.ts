// Approval patterns checked against the tools a toolkit has: a `tools` pattern that matches no tool
// guards nothing, and says nothing about it (a renamed server's tools then run without asking).
import type { Tool } from '@toolplane/toolmodel';
import { compileRules, type ApprovalRules } from '@toolplane/toolrun';
import type { Toolkit } from '../toolkit/types.js';

/** An approval `tools` or `except` pattern that matches no tool the toolkit has. */
export interface UnmatchedApprovalPattern {
  readonly list: 'tools' | 'except';
  readonly pattern: string;
  /** What is wrong and what to do. */
  readonly message: string;
}

/** Tools a `tools` pattern guards in a namespace that a config edit moves to another name. */
export interface LostApprovalGuard {
  readonly pattern: string;
  /** The namespace the tools have now, and the one they would have. */
  readonly from: string;
  readonly to: string;
  /** The IDs of the tools it guards under `from` (`namespace:name`). */
  readonly tools: readonly string[];
}

type Matcher = (tool: Tool) => boolean;

/** What {@link unmatchedApprovalPatterns} is told beyond the toolkit. */
export interface UnmatchedApprovalOptions {
  /**
   * Servers the policy covers that this toolkit was not given (a command that opened only the
   * one server it needs): their tools are unknown here, so a pattern that may name one is left
   * out, as for a server still connecting.
   */
  readonly elsewhere?: readonly string[];
}

/** One pattern alone, compiled by the approval policy's own rules. */
function matcherOf(pattern: string): Matcher {
  const decide = compileRules({ destructive: false, unannotated: false, tools: [pattern] });
  return (tool) => decide(tool) !== undefined;
}

/**
 * Whether `pattern`'s namespace part names `namespace`. `undefined` when that part cannot be read
 * alone (a brace around the colon): such a pattern is taken to name any.
 */
function namesNamespace(pattern: string, namespace: string): boolean | undefined {
  const part = pattern.slice(0, pattern.indexOf(':'));
  let matches: Matcher;
  try {
    matches = matcherOf(`${part}:x`);
  } catch {
    return undefined;
  }
  return matches({ name: 'x', namespace, inputSchema: { type: 'object' } });
}

/** Every tool of the toolkit's index (all pages). */
function allTools(toolkit: Pick<Toolkit, 'index'>): Tool[] {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = toolkit.index.listTools({
      limit: 100,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const entry of page.entries) tools.push(entry.tool);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/**
 * The `tools` and `except` patterns of `rules` that match none of the toolkit's tools, each with
 * a message naming it. A pattern that may name a server not connected yet (starting, failing,
 * waiting for a login), or one of `options.elsewhere`, is left out: its tools are not known
 * until it connects. Patterns are checked as the toolkit's approval checks them
 * (`namespace:tool` IDs); a bad one throws there.
 *
 * @throws {ToolError} `invalid_argument` for a pattern the approval policy refuses.
 */
export function unmatchedApprovalPatterns(
  rules: Pick<ApprovalRules, 'tools' | 'except'>,
  toolkit: Pick<Toolkit, 'index' | 'connectors'>,
  options: UnmatchedApprovalOptions = {},
): UnmatchedApprovalPattern[] {
  const tools = allTools(toolkit);
  const statuses = toolkit.connectors();
  const elsewhere = options.elsewhere ?? [];
  const pending = [
    ...statuses.filter((s) => s.state !== 'connected').map((s) => s.namespace),
    ...elsewhere,
  ];
  const namespaces = [
    ...new Set([
      ...statuses.map((s) => s.namespace),
      ...elsewhere,
      ...tools.flatMap((t) => (t.namespace === undefined ? [] : [t.namespace])),
    ]),
  ].sort();
  const unmatched: UnmatchedApprovalPattern[] = [];
  for (const list of ['tools', 'except'] as const) {
    for (const pattern of rules[list] ?? []) {
      const matches = matcherOf(pattern);
      if (tools.some(matches)) continue;
      if (pending.some((namespace) => namesNamespace(pattern, namespace) !== false)) continue;
      const named = namespaces.filter((namespace) => namesNamespace(pattern, namespace) === true);
      const part = pattern.slice(0, pattern.indexOf(':'));
      const where =
        named.length === 0
          ? `no server's namespace matches "${part}"; servers: ${namespaces.join(', ') || 'none'}`
          : `${named.map((n) => `"${n}"`).join(', ')} has no such tool`;
      const effect =
        list === 'tools'
          ? 'it guards nothing, and the calls it was written for run without asking'
          : 'it exempts nothing';
      const advice =
        named.length === 0
          ? 'write it as namespace:tool with a namespace the gateway has'
          : "check the tool's name against the tools that server lists";
      unmatched.push({
        list,
        pattern,
        message: `approval ${list} pattern "${pattern}" matches no tool (${where}): ${effect}; ${advice}`,
      });
    }
  }
  return unmatched;
}

/**
 * What moving servers to other namespaces (`moves`, a config edit's renames) would take from the
 * running approval policy: for each `tools` pattern, the tools it guards under a namespace moved
 * away that no rule of the policy would guard under the new name (a destructive tool still asked
 * for by `destructive`, or one another pattern names, is not lost). Empty when every guard holds.
 *
 * @throws {ToolError} `invalid_argument` for a pattern the approval policy refuses.
 */
export function lostApprovalGuards(
  rules: ApprovalRules,
  toolkit: Pick<Toolkit, 'index'>,
  moves: readonly { readonly from: string; readonly to: string }[],
): LostApprovalGuard[] {
  if (moves.length === 0 || (rules.tools ?? []).length === 0) return [];
  const tools = allTools(toolkit);
  const decide = compileRules(rules);
  const lost: LostApprovalGuard[] = [];
  for (const pattern of rules.tools ?? []) {
    const matches = matcherOf(pattern);
    for (const { from, to } of moves) {
      const unguarded = tools.filter(
        (tool) =>
          tool.namespace === from &&
          matches(tool) &&
          decide({ ...tool, namespace: to }) === undefined,
      );
      if (unguarded.length === 0) continue;
      lost.push({ pattern, from, to, tools: unguarded.map((tool) => `${from}:${tool.name}`) });
    }
  }
  return lost;
}
