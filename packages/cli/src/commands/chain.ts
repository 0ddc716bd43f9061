import type { Command } from 'commander';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { ToolError } from '@toolplane/toolkit';
import { z } from 'zod';
import { formatDuration } from '../output.js';
import { readNamedFile } from './named-file.js';
import { findTool, printValue, withToolkit, type CommandContext } from './shared.js';

/** `toolplane chain run FILE`, under the `chain` command. */
export function registerChain(chain: Command, context: CommandContext): void {
  const { output, config } = context;
  chain
    .command('run')
    .description('run a chain file: a YAML or JSON list of { tool, args?, usePrevious? }')
    .argument('<file>', 'the chain file')
    .action(async (file: string) => {
      const steps = loadChain(file, await readNamedFile(context, file, 'the chain file'));
      await withToolkit(context, await config(), {}, async ({ toolkit }, cfg) => {
        const resolved = [];
        for (const [index, step] of steps.entries()) {
          const item = await findTool(toolkit, cfg, step.tool, context.signal).catch(
            (error: unknown) => {
              if (!ToolError.isInstance(error)) throw error;
              // Which step names it, counted from 1; the code (and exit code) stays.
              throw new ToolError(error.code, `step ${String(index + 1)}: ${error.message}`, {
                cause: error,
              });
            },
          );
          resolved.push({
            toolId: item.id,
            ...(step.args === undefined ? {} : { args: step.args }),
            ...(step.usePrevious === undefined ? {} : { usePrevious: step.usePrevious }),
          });
        }
        const spinner = output.spinner(`running ${resolved.length} steps`);
        const times: number[] = [];
        let last = performance.now();
        try {
          const { result, steps: results } = await toolkit.runner.runChain(resolved, {
            signal: context.signal,
            onProgress: (event) => {
              const now = performance.now();
              times.push(now - last);
              last = now;
              spinner.update(
                `step ${event.progress}/${event.total ?? resolved.length}: ${event.toolId}`,
              );
            },
          });
          spinner.stop();
          if (output.json) {
            output.data({
              steps: results.map((r, i) => ({
                tool: r.toolId,
                durationMs: Math.round((times[i] ?? 0) * 1000) / 1000,
                result: r.structured ?? null,
              })),
              result: result.structured ?? null,
            });
            return;
          }
          results.forEach((r, i) => {
            output.say(
              `${output.errColor.green('✓')} ${i + 1}. ${r.toolId} ${output.errColor.dim(formatDuration(times[i] ?? 0))}`,
            );
          });
          printValue(output, result.structured);
        } finally {
          spinner.stop();
        }
      });
    });
}

const chainSchema = z
  .array(
    z.strictObject({
      tool: z.string().min(1, 'must name a tool'),
      args: z.record(z.string(), z.unknown()).optional(),
      usePrevious: z.boolean().optional(),
    }),
  )
  .min(1, 'needs at least one step');

function loadChain(path: string, text: string): z.infer<typeof chainSchema> {
  let raw: unknown;
  try {
    raw =
      extname(path).toLowerCase() === '.json'
        ? JSON.parse(text)
        : (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
  } catch (error) {
    throw new ToolError(
      'invalid_argument',
      `cannot read the chain file ${JSON.stringify(path)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const steps =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'steps' in raw
      ? raw.steps
      : raw;
  const parsed = chainSchema.safeParse(steps);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // Steps are counted from 1, as `chain run` prints them: `step 2: tool: must name a tool`.
    const [index, ...rest] = issue?.path ?? [];
    const step = typeof index === 'number' ? `step ${String(index + 1)}` : 'steps';
    const at = rest.map(String).join('.');
    throw new ToolError(
      'invalid_argument',
      `${path}: ${step}${at === '' ? '' : `: ${at}`}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}
