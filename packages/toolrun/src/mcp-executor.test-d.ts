import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { describe, expectTypeOf, it } from 'vitest';
import type { McpCallClient, McpClientSource } from './mcp-executor.js';

describe('McpCallClient', () => {
  it('is satisfied by the SDK v2 Client', () => {
    expectTypeOf<Client>().toExtend<McpCallClient>();
    expectTypeOf<Record<string, Client>>().toExtend<McpClientSource>();
    expectTypeOf<(server: string) => Promise<Client>>().toExtend<McpClientSource>();
  });

  it('is not satisfied by a v1-style callTool that takes a result schema second', () => {
    interface SchemaFirst {
      callTool(
        params: { name: string },
        resultSchema: { parse(value: unknown): unknown },
      ): Promise<CallToolResult>;
    }
    expectTypeOf<SchemaFirst>().not.toExtend<McpCallClient>();
  });
});
