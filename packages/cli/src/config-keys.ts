import type { z } from 'zod';
import { didYouMean, isPlainObject } from '@toolplane/toolmodel';

/**
 * Top-level keys that Claude Desktop's `claude_desktop_config.json` (and editors' JSON files)
 * carry beside `mcpServers`: such a file is read as it is, and these are ignored by name.
 */
export const FOREIGN_TOP_LEVEL_KEYS: readonly string[] = [
  '$schema',
  'globalShortcut',
  'preferences',
  'theme',
];

/**
 * Keys of a server entry that Cursor, Cline or VS Code files carry and toolplane has no use for
 * (approvals and time-outs of their own UIs); ignored by name. `type` and `disabled` are read.
 */
export const FOREIGN_SERVER_KEYS: readonly string[] = [
  'autoApprove',
  'alwaysAllow',
  'transportType',
];

/** `raw` without the {@link FOREIGN_TOP_LEVEL_KEYS} and, in each server, {@link FOREIGN_SERVER_KEYS}. */
export function withoutForeignKeys(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  // Claude Desktop's `telemetry` is not an object; toolplane's (`telemetry: { otlp }`) is.
  const kept = omit(
    raw,
    isPlainObject(raw.telemetry)
      ? FOREIGN_TOP_LEVEL_KEYS
      : [...FOREIGN_TOP_LEVEL_KEYS, 'telemetry'],
  );
  for (const section of ['mcpServers', 'connectors']) {
    const servers = kept[section];
    if (!isPlainObject(servers)) continue;
    kept[section] = Object.fromEntries(
      Object.entries(servers).map(([key, server]) => [
        key,
        isPlainObject(server) ? omit(server, FOREIGN_SERVER_KEYS) : server,
      ]),
    );
  }
  return kept;
}

/**
 * The issue to report first: an unknown key, since a misspelled key (`comand`) is the cause of
 * whatever else is wrong with its object (`needs "command"`).
 */
export function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  return issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0];
}

/**
 * The message for an unknown key among `known` (the keys of its object): the closest known key
 * as a "did you mean" when one is near enough to be a slip of the finger, else the known keys.
 */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const suggestion = didYouMean(key, known);
  return suggestion === undefined
    ? `unknown key "${key}" (known keys: ${known.join(', ')})`
    : `unknown key "${key}"; did you mean "${suggestion}"?`;
}

function omit(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !keys.includes(key)));
}
