import { showControls } from '@toolplane/toolkit';
import type { Command } from 'commander';
import { filterProblems, type FilterProblem } from '../filter-report.js';
import { withToolkit, type CommandContext } from './shared.js';

/** `toolplane connectors status`, under the `connectors` command. */
export function registerConnectors(connectors: Command, context: CommandContext): void {
  const { output, config, setCode } = context;
  connectors
    .command('status')
    .description('start every upstream server and report how each is doing')
    .action(async () => {
      const cfg = await config();
      await withToolkit(context, cfg, { quiet: true }, async ({ toolkit }) => {
        const problems = await filterProblems(cfg, toolkit);
        const rows = toolkit.connectors().map((status) => {
          const connector = toolkit.connector(status.namespace);
          const configured = cfg.connectors.find((c) => c.namespace === status.namespace);
          const lists = connector?.lists;
          return {
            namespace: status.namespace,
            state: status.state,
            transport: configured?.transport ?? 'stdio',
            source: configured?.display ?? '',
            tools: lists?.tools.length ?? 0,
            prompts: lists?.prompts.length ?? 0,
            resources: lists?.resources.length ?? 0,
            ...(status.pid === undefined ? {} : { pid: status.pid }),
            ...(status.error === undefined ? {} : { error: status.error }),
            ...unmatchedOf(problems, status.namespace),
          };
        });
        if (output.json) output.data({ connectors: rows });
        else
          output.table(
            ['NAMESPACE', 'STATE', 'TOOLS', 'PROMPTS', 'RESOURCES', 'SOURCE'],
            rows.map((r) => [
              output.color.cyan(r.namespace),
              r.state === 'connected' ? output.color.green(r.state) : output.color.red(r.state),
              String(r.tools),
              String(r.prompts),
              String(r.resources),
              [
                r.source,
                ...(r.error === undefined ? [] : [output.color.red(showControls(r.error))]),
                ...(r.unmatchedFilter ?? []).map((p) => output.color.yellow(p.message)),
              ].join('\n'),
            ]),
            'no connectors in the config',
          );
        if (rows.some((r) => r.state !== 'connected')) setCode(5);
        else if (cfg.strict && problems.length > 0) setCode(2);
      });
    });
}

/** A row's unmatched filter entries (none: no key, so `--json` stays as it was). */
function unmatchedOf(
  problems: readonly FilterProblem[],
  namespace: string,
): { unmatchedFilter?: { list: string; entry: string; suggestion?: string; message: string }[] } {
  const mine = problems.filter((problem) => problem.namespace === namespace);
  if (mine.length === 0) return {};
  return {
    unmatchedFilter: mine.map(({ list, entry, suggestion, message }) => ({
      list,
      entry,
      ...(suggestion === undefined ? {} : { suggestion }),
      message,
    })),
  };
}
