import type { Command } from 'commander';
import {
  CodeModeError,
  createCodeMode,
  type CodeRunResult,
  type LogEntry,
} from '@toolplane/codemode';
import { MAX_TIMER_MS } from '@toolplane/toolmodel';
import { showControls } from '@toolplane/toolmodel/text';
import { isAllowed } from '../config.js';
import { integerFlag } from './integer-flag.js';
import { readNamedFile } from './named-file.js';
import { printValue, withToolkit, type CommandContext } from './shared.js';

/** `toolplane run-code FILE|-`: a program run against the config's tools in code mode's sandbox. */
export function registerRunCode(command: Command, context: CommandContext): void {
  const { output, config, setCode } = context;
  const printLogs = (logs: readonly LogEntry[]): void => {
    // A program's lines are the model's text: shown, never run as the terminal's control sequences.
    for (const entry of logs) output.say(`[${entry.level}] ${showControls(entry.text)}`);
  };
  command
    .argument('<file>', 'the program file, or - to read it from standard input')
    .option(
      '--timeout <ms>',
      'wall-clock bound of the run, in milliseconds (default codeMode.timeoutMs, else 30000)',
      integerFlag('--timeout', 1, MAX_TIMER_MS),
    )
    .option('--declarations', 'print the TypeScript declarations of the API instead of running')
    .action(async (file: string, options: { timeout?: number; declarations?: boolean }) => {
      const source =
        options.declarations === true
          ? ''
          : file === '-'
            ? await context.readStdin()
            : await readNamedFile(
                context,
                file,
                'the program file',
                ' (pass - to read the program from standard input)',
              );
      const cfg = await config();
      await withToolkit(context, cfg, { quiet: output.json }, async ({ toolkit }) => {
        // The config's per-server "tools" filters hold here as they do for `tools call`.
        const listed = await toolkit.list({ type: 'tool', signal: context.signal });
        const allowed = listed.tools
          .filter((item) => isAllowed(cfg.filter[item.namespace], item.tool))
          .map((item) => item.id);
        const code = createCodeMode(toolkit, {
          // The config's `codeMode` bounds, as `serve`'s mode: code has them; --timeout wins.
          ...cfg.codeMode,
          filter: { tools: allowed },
          ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout }),
        });
        try {
          if (options.declarations === true) {
            output.result(code.declarations());
            return;
          }
          let result: CodeRunResult;
          try {
            result = await code.run(source, { signal: context.signal });
          } catch (error) {
            if (!(error instanceof CodeModeError)) throw error;
            // What the program logged says how far it got: printed as on success, before the
            // error, and kept in the JSON error.
            if (!output.json) printLogs(error.logs);
            setCode(output.fail(error, { logs: error.logs }));
            return;
          }
          if (output.json) {
            output.data({ value: result.value ?? null, logs: result.logs, calls: result.calls });
            return;
          }
          printLogs(result.logs);
          printValue(output, result.value);
        } finally {
          await code.close();
        }
      });
    });
}
