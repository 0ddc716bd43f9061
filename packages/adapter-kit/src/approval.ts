import type { Tool } from '@toolplane/toolmodel';
import {
  approval,
  compileRules,
  type ApprovalOptions,
  type ApprovalRules,
  type ApprovalSession,
  type RunResult,
  type ToolCall,
} from '@toolplane/toolrun';
import { callThrough, type SourceCallOptions, type ToolSource } from './source.js';

/**
 * The approval policy (toolrun's `approval` rules: `destructive`, `unannotated`, `tools`,
 * `except`) as a predicate over tools, for frameworks with an approval step of their own (the
 * AI SDK's `needsApproval`): the framework asks, toolplane only says which tools need it.
 *
 * @throws {ToolError} `invalid_argument` for a bad pattern.
 */
export function approvalPredicate(rules: ApprovalRules): (tool: Tool) => boolean {
  const decide = compileRules(rules);
  return (tool) => decide(tool) !== undefined;
}

/**
 * `source` with its calls gated by toolrun's `approval` middleware, asking with `options.ask`:
 * for frameworks without an approval step (OpenAI, Anthropic, Gemini, LangChain's tools), so an
 * app shows its own prompt. A refused call fails with `approval_denied`, which the adapters
 * return to the model as a failed tool result.
 *
 * @throws {ToolError} `invalid_argument` for bad options.
 */
export function withApproval<S extends ApprovalSession = ApprovalSession>(
  source: ToolSource,
  options: ApprovalOptions<S>,
): ToolSource {
  const gated = approval(options)((call) =>
    callThrough(source, call.toolId, call.args as Record<string, unknown>, {
      ...(call.signal === undefined ? {} : { signal: call.signal }),
      ...(call.onProgress === undefined ? {} : { onProgress: call.onProgress }),
      ...(call.meta === undefined ? {} : { meta: call.meta }),
    }),
  );
  const callTool = (
    id: string,
    input: Record<string, unknown> = {},
    callOptions: SourceCallOptions = {},
  ): Promise<RunResult> => {
    let call: ToolCall;
    try {
      const entry = source.index.getTool(id);
      call = {
        toolId: entry.id,
        tool: entry.tool,
        backend: entry.backend ?? (entry.backends[0] as ToolCall['backend']),
        args: input,
        signal: callOptions.signal,
        onProgress: callOptions.onProgress,
        onChunk: undefined,
        meta: callOptions.meta,
        idempotent: false,
      };
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the index's ToolError, passed on as it is
      return Promise.reject(error);
    }
    return gated(call) as Promise<RunResult>;
  };
  return { index: source.index, runner: { run: callTool }, callTool };
}
