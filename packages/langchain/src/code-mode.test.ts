import { ToolMessage } from '@langchain/core/messages';
import { createCodeMode, type CodeMode } from '@toolplane/codemode';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolplaneArtifact } from './results.js';
import { ScriptedChatModel, runToolLoop } from './testing/scripted-model.js';
import { toLangChainTools } from './tools.js';

// A scripted chat model in code mode over the stdio fixture server: it searches, reads a
// declaration, and runs one program whose calls reach the real upstream.

const toolkit = useFixtureToolkit();
let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(toolkit, { timeoutMs: 20_000, filter: { tools: ['fx:add', 'fx:echo'] } });
});
afterAll(async () => {
  await code.close();
});

describe("toLangChainTools with mode: 'code'", () => {
  it('exposes search_tools, describe_tool and run_code, and runs a program upstream', async () => {
    const tools = await toLangChainTools(toolkit, { mode: 'code', codeMode: code });
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'describe_tool', 'run_code']);
    const program = [
      "console.log('adding');",
      'const { sum } = await tools.fx.add({ a: 2, b: 3 });',
      'return { sum, fail: typeof tools.fx.fail };',
    ].join('\n');
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's', name: 'search_tools', args: { query: 'add numbers' } }] },
      { toolCalls: [{ id: 'd', name: 'describe_tool', args: { id: 'fx:add' } }] },
      {
        toolCalls: [
          { id: 'r', name: 'run_code', args: { code: program } },
          { id: 'x', name: 'run_code', args: { code: 'throw new Error("nope");' } },
          { id: 'h', name: 'describe_tool', args: { id: 'fx:fail' } },
        ],
      },
      { text: '5' },
    ]);
    const messages = await runToolLoop(model, tools, 'add 2 and 3');
    const told = messages.filter((m) => ToolMessage.isInstance(m));
    const artifact = (i: number) => told[i]?.artifact as ToolplaneArtifact;

    const found = artifact(0).structuredContent as { results: { id: string; call: string }[] };
    expect(found.results).toContainEqual(
      expect.objectContaining({ id: 'fx:add', call: 'tools.fx.add' }),
    );
    expect(told[1]?.content as string).toContain('add(args: {');

    // The model reads the value and the logs the program wrote.
    expect(told[2]).toMatchObject({
      status: 'success',
      content: '{"sum":5,"fail":"undefined"}\nlogs:\n[log] adding',
    });
    const quiet = await tools[2]?.invoke({
      id: 'q',
      name: 'run_code',
      args: { code: 'return await tools.fx.add({ a: 1, b: 1 });' },
      type: 'tool_call',
    });
    expect((quiet?.artifact as ToolplaneArtifact).structuredContent).toEqual({ sum: 2 });
    expect(told[3]?.status).toBe('error');
    expect(artifact(3).code).toBe('execution');
    expect(told[4]?.status).toBe('error');
    expect(artifact(4).code).toBe('not_found');
  });

  it('refuses code mode without a code mode to run on', async () => {
    await expect(toLangChainTools(toolkit, { mode: 'code' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
