import type { Command } from 'commander';
import { ToolError } from '@toolplane/toolkit';
import { DEFAULT_SEPARATOR, didYouMean } from '@toolplane/toolmodel';
import type { CliConfig } from '../config.js';
import { storeFamily } from '../stores/store-family.js';
import type { CommandContext } from './shared.js';

/**
 * `ns:tool` for `ns__tool` (the name a gateway exposes, or the config's `naming.separator`) when
 * `ns` is a namespace of the config; the key itself otherwise.
 */
function canonicalToolId(cfg: CliConfig, key: string): string {
  if (key.includes(':')) return key;
  const separator = cfg.naming.separator ?? DEFAULT_SEPARATOR;
  const at = key.indexOf(separator);
  if (at <= 0) return key;
  const namespace = key.slice(0, at);
  const known = namespace === 'builtin' || cfg.connectors.some((c) => c.namespace === namespace);
  return known ? `${namespace}:${key.slice(at + separator.length)}` : key;
}

/** `1 tool`, `2 tools`. */
function counted(n: number, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** `toolplane search forget [tool]`: what search learned from use, dropped. */
export function registerSearch(search: Command, context: CommandContext): void {
  const { output, config } = context;
  search
    .command('forget')
    .description(
      'drop what search learned from use (which searches led to which tool calls): of one tool, or all of it',
    )
    .argument(
      '[tool]',
      'the tool, as ns:tool or as a client sees it (ns__tool); default: every tool',
    )
    .action(async (key: string | undefined) => {
      if (key?.trim() === '') {
        throw new ToolError(
          'invalid_argument',
          'the tool to forget is empty: give ns:tool, or nothing to forget every tool',
        );
      }
      const cfg = await config();
      const evidence = await storeFamily(cfg.store).evidenceStore();
      try {
        const rows = await evidence.load({ signal: context.signal });
        const toolId = key === undefined ? undefined : canonicalToolId(cfg, key);
        const dropped =
          toolId === undefined ? rows.length : rows.filter((r) => r.toolId === toolId).length;
        if (toolId !== undefined && dropped === 0) {
          const near = didYouMean(toolId, [...new Set(rows.map((r) => r.toolId))]);
          throw new ToolError(
            'not_found',
            `search has learned nothing about "${toolId}"${near === undefined ? '' : `; did you mean "${near}"?`}`,
          );
        }
        await evidence.forget(toolId);
        const tools = new Set(rows.map((r) => r.toolId)).size;
        if (output.json) {
          output.data({ forgot: { tool: toolId ?? null, terms: dropped } });
        } else {
          const terms = counted(dropped, 'learned term');
          output.say(
            toolId === undefined
              ? `forgot ${terms} of ${counted(tools, 'tool')}`
              : `forgot ${terms} of ${toolId}`,
          );
        }
      } finally {
        await evidence.close?.();
      }
    });
}
