// Filter entries that match no tool of their server: reported, never silently ignored, as a
// misspelt deny entry leaves exposed the very tool it was meant to hide.
import type { UnmatchedFilterEntry } from '@toolplane/gateway';
import { ToolError, unmatchedApprovalPatterns, type Toolkit } from '@toolplane/toolkit';
import type { CliConfig } from './config.js';

/** A connected server's `tools` filter entries that match none of its tools. */
export interface FilterProblem extends UnmatchedFilterEntry {
  readonly namespace: string;
  /** What is wrong and what to do, with a "did you mean". */
  readonly message: string;
}

/**
 * The unmatched `allow`/`deny` entries of `namespace` (or of every connected server): only a
 * connected server's tool list can tell a misspelt entry from a real one.
 */
export async function filterProblems(
  cfg: CliConfig,
  toolkit: Toolkit,
  namespace?: string,
): Promise<FilterProblem[]> {
  const problems: FilterProblem[] = [];
  // Loaded only for a config with filters: `tools list` on a plain config never loads the gateway.
  if (Object.keys(cfg.filter).length === 0) return problems;
  const { describeUnmatchedEntry, unmatchedFilterEntries } = await import('@toolplane/gateway');
  for (const status of toolkit.connectors()) {
    if (namespace !== undefined && status.namespace !== namespace) continue;
    if (status.state !== 'connected') continue;
    const tools = toolkit.connector(status.namespace)?.lists.tools ?? [];
    for (const entry of unmatchedFilterEntries(cfg.filter[status.namespace], tools)) {
      problems.push({
        ...entry,
        namespace: status.namespace,
        message: describeUnmatchedEntry(status.namespace, entry),
      });
    }
  }
  return problems;
}

/**
 * What `serve` checks once its servers have had their wait: under `strict`, a filter entry or an
 * approval pattern that matches no tool stops it before it serves (an approval pattern that
 * guards nothing lets the calls it was written for run without asking, a security warning
 * strict makes fatal as it does the filter's).
 *
 * @throws {ToolError} `invalid_config` naming each one (exit code 2).
 */
export async function refuseUnmatchedAtStart(cfg: CliConfig, toolkit: Toolkit): Promise<void> {
  if (cfg.strict) await checkUnmatched(cfg, toolkit, { approval: true });
}

function refuseUnmatched(cfg: CliConfig, messages: readonly string[]): void {
  if (!cfg.strict || messages.length === 0) return;
  throw new ToolError(
    'invalid_config',
    `${messages.join('\n')}\n(strict: fix the config, or run without --strict and strict: true to only warn)`,
  );
}

/**
 * What the running approval policy's `tools` and `except` patterns match no tool of, as messages:
 * a pattern naming a server the config does not have (a namespace renamed, a typo) guards nothing,
 * and the calls it was written for run without asking. Patterns that may name a server still
 * connecting wait for it, as do those that may name a configured server the toolkit was not
 * given (a command that opened only the one it needs).
 */
export function approvalProblems(cfg: CliConfig, toolkit: Toolkit): string[] {
  if (cfg.approval === undefined) return [];
  const opened = new Set(toolkit.connectors().map((status) => status.namespace));
  const elsewhere = cfg.connectors
    .map((connector) => connector.namespace)
    .filter((namespace) => !opened.has(namespace));
  return unmatchedApprovalPatterns(cfg.approval, toolkit, { elsewhere }).map(
    (problem) => problem.message,
  );
}

/**
 * What a command checks once its servers have connected: the filter entries and, when
 * it listed its servers' tools (`approval`), the approval patterns that match no tool, as
 * messages for it to warn of; under `strict` (the `--strict` flag or `strict: true`), refused.
 *
 * @throws {ToolError} `invalid_config` naming each one, under `strict` (exit code 2).
 */
export async function checkUnmatched(
  cfg: CliConfig,
  toolkit: Toolkit,
  options: { readonly approval: boolean },
): Promise<string[]> {
  const messages = [
    ...(await filterProblems(cfg, toolkit)).map((problem) => problem.message),
    ...(options.approval ? approvalProblems(cfg, toolkit) : []),
  ];
  refuseUnmatched(cfg, messages);
  return messages;
}
