import type { Command } from 'commander';
import {
  acceptCommand,
  auditLimit,
  MAX_AUDIT_LIMIT,
  changedFields,
  checkAcceptTarget,
  describePinChange,
  parseAcceptTarget,
  showControls,
  ToolError,
  type PinChange,
  type PinStore,
} from '@toolplane/toolkit';
import type { CliConfig } from '../config.js';
import { parseIsoTime } from '../iso-time.js';
import { openPinStore } from '../open.js';
import { integerFlag } from './integer-flag.js';
import type { CommandContext } from './shared.js';

/** Opens the config's pin store for one command (no listening connection), and closes it. */
async function withPins<T>(cfg: CliConfig, work: (pins: PinStore) => Promise<T>): Promise<T> {
  if (cfg.store.kind === 'memory') {
    throw new ToolError(
      'invalid_config',
      'pins kept in memory live only inside the gateway process; set `store:` to a SQLite file or PostgreSQL to review and accept changes from the command line',
    );
  }
  const pins = await openPinStore(cfg.store, { listen: false });
  try {
    return await work(pins);
  } finally {
    await pins.close();
  }
}

/** The command that accepts `change` only while it offers the definition shown. */
function reviewedAccept(change: PinChange): string {
  return acceptCommand(change.namespace, change.tool, { fingerprint: change.current.fingerprint });
}

/** Who an acceptance names in the audit log: the operating-system user. */
function whoAmI(env: Readonly<Record<string, string | undefined>>): string {
  return `cli:${env.USER ?? env.USERNAME ?? 'unknown'}`;
}

/** `toolplane tools changes [ns]` and `toolplane tools accept <ns[:tool]>`, under `tools`. */
export function registerPinCommands(tools: Command, context: CommandContext): void {
  const { output, config } = context;
  tools
    .command('changes')
    .description('show tools whose server changed them since they were pinned, as diffs')
    .argument('[namespace]', 'only this namespace')
    .action(async (namespace: string | undefined) => {
      const cfg = await config();
      const changes = await withPins(cfg, (pins) => pins.listChanges(namespace));
      if (output.json) {
        output.data({
          changes: changes.map((change) => ({
            id: `${change.namespace}:${change.tool}`,
            fields: changedFields(change),
            pinned: change.pinned,
            current: change.current,
            seenAt: new Date(change.seenAt).toISOString(),
            accept: reviewedAccept(change),
          })),
        });
        return;
      }
      if (changes.length === 0) {
        output.say(
          namespace === undefined
            ? 'no changed tools'
            : `no changed tools in ${showControls(namespace)}`,
        );
        return;
      }
      for (const change of changes) {
        const id = `${change.namespace}:${change.tool}`;
        output.out(
          `${output.color.cyan(showControls(id))} changed (${changedFields(change).join(', ')}), first seen ${new Date(change.seenAt).toISOString()}`,
        );
        output.out(describePinChange(change));
        // With the fingerprint of the diff shown: a later change is refused, not accepted unseen.
        output.out(output.color.dim(`accept with: ${reviewedAccept(change)}\n`));
      }
    });
  tools
    .command('accept')
    .description('accept the changed definitions of a namespace or one tool (see `tools changes`)')
    .argument('<target>', 'a namespace, or namespace:tool')
    .option(
      '--fingerprint <sha256>',
      'accept only while the tool offers this definition (the one `tools changes` showed)',
    )
    .action(async (text: string, options: { fingerprint?: string }) => {
      const target = {
        ...parseAcceptTarget(text),
        ...(options.fingerprint === undefined ? {} : { fingerprint: options.fingerprint }),
      };
      checkAcceptTarget(target);
      const cfg = await config();
      const accepted = await withPins(cfg, (pins) => pins.accept(target, whoAmI(context.env)));
      if (accepted.length === 0) {
        throw new ToolError(
          'not_found',
          `no changed tool to accept for ${JSON.stringify(text)}; \`toolplane tools changes\` lists them`,
        );
      }
      if (output.json) {
        output.data({
          accepted: accepted.map((c) => ({
            id: `${c.namespace}:${c.tool}`,
            fingerprint: c.current.fingerprint,
            previous: c.pinned.fingerprint,
          })),
        });
        return;
      }
      for (const change of accepted) {
        output.out(
          `accepted ${output.color.cyan(`${change.namespace}:${change.tool}`)} ${output.color.dim(change.current.fingerprint)}`,
        );
      }
    });
}

/** `toolplane audit`: the audit log (approvals and pins), oldest first. */
export function registerAudit(audit: Command, context: CommandContext): void {
  const { output, config } = context;
  audit
    .option('-s, --since <time>', 'only records at or after this time (ISO 8601, e.g. 2026-11-28)')
    .option(
      '-l, --limit <n>',
      'at most this many of the newest records (1-10000)',
      (v: string) => auditLimit(integerFlag('--limit', 1, MAX_AUDIT_LIMIT)(v)),
      100,
    )
    .action(async (options: { since?: string; limit: number }) => {
      const since =
        options.since === undefined ? undefined : parseIsoTime(options.since, '--since');
      const cfg = await config();
      const records = await withPins(cfg, (pins) =>
        pins.listAudit({ limit: options.limit, ...(since === undefined ? {} : { since }) }),
      );
      if (output.json) {
        output.data({
          records: records.map((record) => ({ ...record, at: new Date(record.at).toISOString() })),
        });
        return;
      }
      output.table(
        ['TIME', 'KIND', 'TOOL', 'WHO', 'FINGERPRINT'],
        records.map((record) => [
          new Date(record.at).toISOString(),
          record.kind,
          output.color.cyan(showControls(record.toolId)),
          showControls(record.who ?? ''),
          (record.fingerprint ?? '').slice(0, 19),
        ]),
        'no audit records',
      );
    });
}
