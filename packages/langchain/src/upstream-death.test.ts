import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { ToolMessage } from '@langchain/core/messages';
import { childPids, everythingCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolplaneArtifact } from './results.js';
import { ScriptedChatModel, runToolLoop } from './testing/scripted-model.js';
import { toLangChainTools } from './tools.js';

let running: RunningToolkit;
beforeAll(async () => {
  const toolkit = createToolkit();
  toolkit.addConnector(everythingCommand(), { namespace: 'everything' });
  running = await runToolkit(toolkit);
});
afterAll(async () => {
  await running.stop();
});

/** Kills the upstream server at the tool's first progress report: it dies mid-call. */
class KillOnProgress extends BaseCallbackHandler {
  name = 'kill-on-progress';
  killed: number[] = [];
  override handleToolEvent(): void {
    if (this.killed.length > 0) return;
    this.killed = childPids('server-everything');
    for (const pid of this.killed) process.kill(pid, 'SIGKILL');
  }
}

describe('a server that dies mid-call', () => {
  it('answers the model with an error message instead of hanging or throwing', async () => {
    const tools = await toLangChainTools(running.toolkit, {
      include: { ids: ['everything:trigger-long-running-operation'] },
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          {
            id: 'long',
            name: 'everything__trigger-long-running-operation',
            args: { duration: 30, steps: 30 },
          },
        ],
      },
      { text: 'The server went away.' },
    ]);
    const killer = new KillOnProgress();
    const messages = await runToolLoop(model, tools, 'work', { callbacks: [killer] });
    expect(killer.killed.length).toBeGreaterThan(0);
    expect(messages.at(-1)?.content).toBe('The server went away.');
    const told = messages.filter((m) => ToolMessage.isInstance(m));
    expect(told[0]?.status).toBe('error');
    const artifact = told[0]?.artifact as ToolplaneArtifact;
    expect(artifact.isError).toBe(true);
    expect(artifact.code).toBeDefined();
    expect(told[0]?.content).toMatch(new RegExp(`^${String(artifact.code)}: `));
  });
});
