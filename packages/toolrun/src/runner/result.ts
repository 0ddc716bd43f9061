// A backend's answer made into the runner's result: an MCP result normalised (and an `isError`
// result from a local or provider handler turned into the error it is), then checked against
// the tool's output schema.
import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolError, type SchemaValidator } from '@toolplane/toolmodel';
import { toToolError } from '../errors.js';
import { isMcpToolResult } from '../mcp-result.js';
import { mcpResultText, normalizeMcpResult } from '../normalize.js';
import type { RunResult, ToolCall } from '../types.js';

/**
 * The result of `call` from what its backend returned (`raw`); `validator`, when given, checks
 * it against the tool's `outputSchema`.
 *
 * @throws {ToolError} `execution` for an error result or one that cannot be normalised,
 * `output_validation` (with `errors`) for a result that does not match the output schema.
 */
export function runResult(
  call: ToolCall,
  raw: unknown,
  validator: SchemaValidator | undefined,
): RunResult {
  const { toolId, tool, backend } = call;
  let result: RunResult;
  if (backend.kind === 'mcp' || isMcpToolResult(raw)) {
    // A spread copy drops the non-enumerable mark of a handler's MCP result.
    const mcpResult =
      backend.kind === 'mcp' ? (raw as CallToolResult) : { ...(raw as CallToolResult) };
    if (backend.kind !== 'mcp' && mcpResult.isError === true) {
      const text = mcpResultText(mcpResult);
      throw new ToolError(
        'execution',
        text.length > 0 ? text : `tool "${toolId}" returned an error result without text`,
        { cause: mcpResult, toolId, backend, op: 'execute' },
      );
    }
    let structured: unknown;
    try {
      structured = normalizeMcpResult(mcpResult);
    } catch (error) {
      throw toToolError(error, 'execution', { toolId, backend, op: 'normalize' });
    }
    result = { toolId, tool, backend, structured, mcpResult };
  } else {
    result = { toolId, tool, backend, structured: raw };
  }
  if (validator !== undefined && tool.outputSchema !== undefined) {
    let outcome;
    try {
      outcome = validator.validateOutput(tool, result.structured);
    } catch (error) {
      throw toToolError(error, 'output_validation', { toolId, backend, op: 'validate_output' });
    }
    if (!outcome.valid) {
      throw new ToolError(
        'output_validation',
        `tool "${toolId}" returned a result that does not match its outputSchema: ${outcome.errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}`,
        { toolId, backend, op: 'validate_output', errors: outcome.errors },
      );
    }
  }
  return result;
}
