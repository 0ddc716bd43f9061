// `Runner.runChain`: steps run one after another, each optionally handed the previous step's
// structured result, stopping at the first failure with what completed before it.
import { ToolError } from '@toolplane/toolmodel';
import { abortError, ChainError, toToolError } from '../errors.js';
import { checkRunOptions } from '../middleware/options.js';
import type { RunOptions, RunResult } from '../types.js';
import type { ChainResult, ChainStep, RunChainOptions } from './types.js';

/**
 * Runs `steps` with `run`, in order.
 *
 * @throws {ToolError} `invalid_argument` for an empty or non-array `steps`.
 * @throws {ChainError} the failing step's error, with `stepIndex` and the completed `steps`;
 * `cancelled` when the signal aborts between steps.
 */
export async function runSteps(
  run: (toolId: string, args: unknown, options: RunOptions) => Promise<RunResult>,
  steps: readonly ChainStep[],
  options: RunChainOptions,
): Promise<ChainResult> {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new ToolError('invalid_argument', 'runChain needs at least one step');
  }
  checkRunOptions(options, 'runChain');
  // Every step is checked before the first runs, so a bad one never leaves the chain half done.
  steps.forEach((step: unknown, index) => {
    const toolId = (step as { toolId?: unknown } | null)?.toolId;
    if (typeof step !== 'object' || typeof toolId !== 'string') {
      throw new ToolError(
        'invalid_argument',
        `runChain step ${index} must be an object with a toolId string ({ toolId, args?, usePrevious? })`,
      );
    }
  });
  const { signal, onProgress } = options;
  const results: RunResult[] = [];
  let previous: unknown;
  for (let stepIndex = 0; stepIndex < steps.length; stepIndex++) {
    const step = steps[stepIndex] as ChainStep;
    if (signal?.aborted === true) {
      throw new ChainError(abortError(signal, { toolId: step.toolId, op: 'resolve' }), stepIndex, [
        ...results,
      ]);
    }
    const args = step.usePrevious === true ? { ...step.args, previous } : step.args;
    let result: RunResult;
    try {
      result = await run(step.toolId, args, { signal });
    } catch (error) {
      const toolError = ToolError.isInstance(error)
        ? error
        : toToolError(error, 'execution', {
            toolId: step.toolId,
            backend: undefined,
            op: 'execute',
          });
      throw new ChainError(toolError, stepIndex, [...results]);
    }
    results.push(result);
    previous = result.structured;
    onProgress?.({
      progress: stepIndex + 1,
      total: steps.length,
      message: `step ${stepIndex + 1} of ${steps.length} done: ${step.toolId}`,
      stepIndex,
      toolId: step.toolId,
    });
  }
  return { result: results[results.length - 1] as RunResult, steps: results };
}
