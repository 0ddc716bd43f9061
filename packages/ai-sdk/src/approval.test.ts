import { createIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import { createLocalRegistry, createRunner } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { toAiSdkTools } from './tools.js';

const tools: Tool[] = [
  {
    name: 'drop',
    namespace: 'db',
    inputSchema: { type: 'object' },
    annotations: { destructiveHint: true },
  },
  {
    name: 'count',
    namespace: 'db',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
  },
];

function source() {
  const index = createIndex();
  const local = createLocalRegistry();
  for (const tool of tools) {
    index.registerTool(tool, { kind: 'local', local: { name: tool.name } });
    local.register(tool.name, () => tool.name);
  }
  return { index, runner: createRunner({ index, local }) };
}

describe('toAiSdkTools({ needsApproval: policy })', () => {
  it("maps toolplane's approval policy to the AI SDK's needsApproval", async () => {
    const set = await toAiSdkTools(source(), { needsApproval: { destructive: true } });
    const flags = Object.fromEntries(
      Object.entries(set).map(([name, tool]) => [
        name,
        (tool as { needsApproval?: unknown }).needsApproval === true,
      ]),
    );
    expect(Object.values(flags).sort()).toEqual([false, true]);
    expect(Object.entries(flags).find(([, needs]) => needs)?.[0]).toMatch(/drop/);
  });

  it('refuses a hostile glob in the policy with invalid_argument', async () => {
    const code = await toAiSdkTools(source(), {
      needsApproval: { tools: ['db:*a*a*a*a*a*a*a*a*b'] },
    }).then(
      () => undefined,
      (error: unknown) => (error as { code?: string }).code,
    );
    expect(code).toBe('invalid_argument');
  });
});
