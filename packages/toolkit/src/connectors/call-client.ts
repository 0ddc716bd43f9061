import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { SdkError, SdkErrorCode, type CallToolResult } from '@modelcontextprotocol/client';
import type { McpCallClient } from '@toolplane/toolrun';

// The runner's MCP executor (toolrun) is on SDK v2 while the connectors still hold v1 clients.
// This seam gives the executor a v1 client in v2's shape: callTool without the result-schema
// argument, and v1's timeout and closed-connection errors as the v2 `SdkError`s the executor
// classifies. It goes when the connectors move to `@modelcontextprotocol/client`.

const adapters = new WeakMap<Client, McpCallClient>();

function asSdkError(error: unknown): unknown {
  if (!(error instanceof McpError)) return error;
  if (error.code === (ErrorCode.RequestTimeout as number)) {
    return new SdkError(SdkErrorCode.RequestTimeout, error.message, error.data, { cause: error });
  }
  if (error.code === (ErrorCode.ConnectionClosed as number)) {
    return new SdkError(SdkErrorCode.ConnectionClosed, error.message, error.data, {
      cause: error,
    });
  }
  return error;
}

/**
 * `client` (SDK v1) as the {@link McpCallClient} of toolrun's executor; one adapter per client.
 * A client still connecting (a per-session connection's first call) gives its adapter when ready.
 */
export function callClientOf(client: Client): McpCallClient;
export function callClientOf(
  client: Client | Promise<Client>,
): McpCallClient | Promise<McpCallClient>;
export function callClientOf(
  client: Client | Promise<Client>,
): McpCallClient | Promise<McpCallClient> {
  return client instanceof Promise ? client.then(adapt) : adapt(client);
}

function adapt(client: Client): McpCallClient {
  let adapter = adapters.get(client);
  if (adapter === undefined) {
    adapter = {
      async callTool(params, options) {
        try {
          // Without a result schema v1 parses with CallToolResultSchema, so this is a CallToolResult.
          return (await client.callTool(params, undefined, options)) as CallToolResult;
        } catch (error) {
          throw asSdkError(error);
        }
      },
      get transport() {
        return client.transport;
      },
    };
    adapters.set(client, adapter);
  }
  return adapter;
}
