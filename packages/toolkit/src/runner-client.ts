import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '@toolplane/toolmodel';
import type { McpClient } from '@toolplane/toolrun';

type McpCallResult = Awaited<ReturnType<McpClient['callTool']>>;

// The connectors still hold SDK v1 clients while toolrun's executor calls SDK v2 ones: this is
// the seam between them until the connectors move to `@modelcontextprotocol/client`, when it goes.
// Both SDKs put the same JSON on the wire; what differs is the call's signature (v1 takes a
// result schema before the options) and the errors (v1 reports a timeout or a closed connection
// as an `McpError` with a JSON-RPC code, v2 as an `SdkError`, which toolrun recognises).

function fromV1Error(error: unknown, serverName: string, toolName: string): unknown {
  if (!(error instanceof McpError)) return error;
  const where = `MCP tool "${toolName}" on server "${serverName}"`;
  if (error.code === (ErrorCode.RequestTimeout as number)) {
    return new ToolError('timeout', `${where} timed out: ${error.message}`, { cause: error });
  }
  if (error.code === (ErrorCode.ConnectionClosed as number)) {
    return new ToolError(
      'execution',
      `${where} failed: the connection closed before it answered (did the server exit?)`,
      { cause: error },
    );
  }
  return error;
}

/**
 * `client` (an SDK v1 `Client` of the connector for `serverName`) in the shape toolrun's MCP
 * executor calls: {@link McpClient}. A v1 timeout or closed connection becomes the
 * {@link ToolError} the executor gives for a v2 one (`timeout`, `execution`).
 */
export function runnerClient(client: Client, serverName: string): McpClient {
  return {
    get transport() {
      // A v1 transport is a v2 one to TypeScript and in all the relay uses: `onmessage`.
      return client.transport;
    },
    async callTool(params, options = {}) {
      const { signal, timeout, resetTimeoutOnProgress, maxTotalTimeout } = options;
      try {
        const result = await client.callTool(params, undefined, {
          signal,
          timeout,
          resetTimeoutOnProgress,
          maxTotalTimeout,
        });
        return result as McpCallResult;
      } catch (error) {
        throw fromV1Error(error, serverName, params.name);
      }
    },
  };
}
