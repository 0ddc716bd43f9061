import { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { rejection } from './testing/helpers.js';
import { createMcpExecutor, type McpCallClient } from './mcp-executor.js';

// Most of the ecosystem still hands out v1 SDK clients, whose callTool(params, resultSchema,
// options) would read our request options as a result schema.

describe('createMcpExecutor with a v1 SDK Client', () => {
  it('refuses it with invalid_argument, from a record or a function', async () => {
    const v1 = new V1Client({ name: 'v1', version: '1.0.0' }) as unknown as McpCallClient;
    const fromRecord = createMcpExecutor({ clients: { old: v1 } });
    const fromFunction = createMcpExecutor({ clients: () => Promise.resolve(v1) });
    expect((await rejection(fromRecord.callTool('old', 'echo', {}))).code).toBe('invalid_argument');
    expect((await rejection(fromFunction.callTool('old', 'echo', {}))).code).toBe(
      'invalid_argument',
    );
  });

  it('lets a v2 Client through to its own call', async () => {
    // Not connected: the call fails in the SDK, not at the door.
    const v2 = new Client({ name: 'v2', version: '1.0.0' });
    const executor = createMcpExecutor({ clients: { fresh: v2 } });
    expect((await rejection(executor.callTool('fresh', 'echo', {}))).code).not.toBe(
      'invalid_argument',
    );
  });
});
