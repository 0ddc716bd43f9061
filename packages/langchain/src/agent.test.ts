import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { ToolMessage } from '@langchain/core/messages';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import type { ToolplaneArtifact } from './results.js';
import { ScriptedChatModel } from './testing/scripted-model.js';
import { toLangChainTools } from './tools.js';

const toolkit = useFixtureToolkit();

/** The tool's first progress report says it has started upstream: aborts then. */
class AbortOnProgress extends BaseCallbackHandler {
  name = 'abort-on-progress';
  constructor(private readonly controller: AbortController) {
    super();
  }
  override handleToolEvent(): void {
    this.controller.abort();
  }
}

describe('toLangChainTools in a LangChain agent (createAgent)', () => {
  it('runs the tools the model calls and gives it their messages, errors included', async () => {
    const tools = await toLangChainTools(toolkit, {
      include: { ids: ['fx:add', 'fx:mixed', 'fx:report-error'] },
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'a', name: 'fx__add', args: { a: 20, b: 22 } },
          { id: 'm', name: 'fx__mixed', args: {} },
          { id: 'e', name: 'fx__report-error', args: { message: 'not allowed' } },
        ],
      },
      { text: 'The sum is 42.' },
    ]);
    const agent = createAgent({ model, tools });
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'add 20 and 22' }] });
    expect(result.messages.at(-1)?.content).toBe('The sum is 42.');
    const told = (model.turns[1]?.messages ?? []).filter((m) => ToolMessage.isInstance(m));
    expect(told.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['a', 'success'],
      ['m', 'success'],
      ['e', 'error'],
    ]);
    expect(told[0]?.content).toBe('{"sum":42}');
    expect((told[1]?.artifact as ToolplaneArtifact).content.map((block) => block.type)).toEqual([
      'text',
      'image',
      'resource',
    ]);
    expect(told[2]?.content).toBe('not allowed');
    expect(model.turns[0]?.tools.map((tool) => tool.function.name).sort()).toEqual([
      'fx__add',
      'fx__mixed',
      'fx__report-error',
    ]);
  });

  it('cancels the upstream call when the agent run is aborted', async () => {
    const label = `agent-abort-${String(Date.now())}`;
    const tools = await toLangChainTools(toolkit, { include: { ids: ['fx:slow'] } });
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 's', name: 'fx__slow', args: { ms: 120_000, label } }] },
      { text: 'never reached' },
    ]);
    const agent = createAgent({ model, tools });
    const controller = new AbortController();
    const run = agent.invoke(
      { messages: [{ role: 'user', content: 'wait' }] },
      {
        signal: controller.signal,
        callbacks: [new AbortOnProgress(controller)],
      },
    );
    // LangGraph races the run against its signal and rejects with the signal's reason.
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    const seen = await toolkit.callTool('fx:wait-cancelled', { label, timeoutMs: 15_000 });
    expect(seen.structured).toEqual({ cancelled: true });
    expect(model.turns).toHaveLength(1);
  });
});
