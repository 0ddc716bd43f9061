import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, type Toolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import type { ToolSource } from '@toolplane/adapter-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode } from './code-mode.js';
import { CodeModeError } from './errors.js';

// A run that ends early cancels its tool calls in flight at the real upstream MCP server (over
// stdio): the fixture's `slow` records the `notifications/cancelled` it got. The source is the
// toolkit itself, with a progress listener added to each call: the upstream's first progress
// report is the marker that it has started the call.

let toolkit: Toolkit;
let running: RunningToolkit;
let onStart: () => void = () => undefined;
let source: ToolSource;
beforeAll(async () => {
  toolkit = createToolkit();
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  running = await runToolkit(toolkit);
  source = {
    index: toolkit.index,
    runner: toolkit.runner,
    callTool: (id, input, options) =>
      toolkit.callTool(id, input, {
        ...options,
        onProgress: () => {
          onStart();
        },
      }),
  };
});
afterAll(async () => {
  await running.stop();
});

const slowProgram = (label: string): string =>
  `await tools.fx.slow({ ms: 600000, label: ${JSON.stringify(label)} }); return 'finished';`;

async function upstreamSawCancel(label: string): Promise<unknown> {
  const seen = await toolkit.callTool('fx:wait-cancelled', { label, timeoutMs: 15_000 });
  return seen.structured;
}

describe('code mode over an MCP upstream', () => {
  it('cancels the call in flight upstream when the run passes timeoutMs', async () => {
    const code = createCodeMode(source, { timeoutMs: 3_000 });
    let started = false;
    onStart = () => {
      started = true;
    };
    try {
      const error = await code.run(slowProgram('run-timeout')).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(CodeModeError);
      expect((error as CodeModeError).code).toBe('timeout');
      expect(started).toBe(true);
      expect(await upstreamSawCancel('run-timeout')).toEqual({ cancelled: true });
    } finally {
      await code.close();
    }
  });

  it('cancels the call in flight upstream when the signal aborts', async () => {
    const code = createCodeMode(source, { timeoutMs: 60_000 });
    const controller = new AbortController();
    onStart = () => {
      controller.abort();
    };
    try {
      const error = await code
        .run(slowProgram('run-abort'), { signal: controller.signal })
        .catch((thrown: unknown) => thrown);
      expect((error as CodeModeError).code).toBe('cancelled');
      expect(await upstreamSawCancel('run-abort')).toEqual({ cancelled: true });
    } finally {
      await code.close();
    }
  });
});
