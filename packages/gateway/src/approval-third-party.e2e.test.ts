import { MCPClient, type MCPInputRequest } from '@mastra/mcp';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './testing/http-gateway.js';

// A third-party client with elicitation (Mastra's MCP client, which speaks 2026-07-28 and answers
// input_required rounds through its `inputRequests` handler) approving and declining a
// destructive call through the gateway.

const gateway = useHttpGateway(useFixtureToolkit({ approval: { destructive: true } }));

function run(tool: { execute?: unknown } | undefined, input: unknown): Promise<unknown> {
  const execute = tool?.execute as
    ((input: unknown, context: object) => Promise<unknown>) | undefined;
  if (execute === undefined) throw new Error('no such tool');
  return execute(input, {});
}

describe('@mastra/mcp 2.x approving a destructive call', () => {
  const accepts: ElicitResult = { action: 'accept', content: { approve: true } };
  const declines: ElicitResult = { action: 'decline' };
  it.each([
    ['accepts', accepts, true],
    ['declines', declines, false],
  ])('runs the call once when the person %s, and not at all otherwise', async (_, answer, runs) => {
    const asked: MCPInputRequest[] = [];
    const mcp = new MCPClient({
      id: `toolplane-approval-${String(runs)}`,
      servers: {
        gw: {
          url: gateway.url,
          onToolError: 'return',
          inputRequests: (request) => {
            asked.push(request);
            return Promise.resolve(answer);
          },
        },
      },
    });
    try {
      const tools = await mcp.listTools();
      const id = `mastra-${String(runs)}`;
      const result = await run(tools['gw_fx__delete-item'], { id });
      expect(asked).toHaveLength(1);
      expect(asked[0]?.params.message).toContain('fx:delete-item');
      if (runs) expect(JSON.stringify(result)).toContain(`deleted ${id}`);
      else expect(JSON.stringify(result)).toContain('approval_denied');
      const deleted = JSON.stringify(await run(tools['gw_fx__deleted-items'], {}));
      expect(deleted.includes(id)).toBe(runs);
    } finally {
      await mcp.disconnect();
    }
  });
});
