import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/client';
import {
  fixtureCommand,
  recordEvents,
  startHttpFixture,
  type HttpFixture,
} from '@toolplane/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamRequest, UpstreamRequestHandler } from '../connectors/connector.js';
import { runToolkit, type RunningToolkit } from '../testing/run-toolkit.js';
import { createToolkit } from './toolkit.js';
import type { ToolkitEvent } from './types.js';

// A 2026-07-28-only upstream (the SDK v2 server with `legacy: 'reject'`) behind the toolkit, over
// real stdio and real HTTP: everything a 2025 upstream does through the toolkit, it does too.

function text(result: { mcpResult?: { content: unknown[] } }): string {
  return (result.mcpResult?.content as { text?: string }[]).map((block) => block.text).join('');
}

// eslint-disable-next-line @typescript-eslint/no-deprecated -- sampling is bridged in both eras
const sampled: CreateMessageResult = {
  role: 'assistant',
  model: 'test',
  content: { type: 'text', text: 'from the toolkit' },
};
const accepted: ElicitResult = { action: 'accept', content: { answer: 'yes' } };

describe.each(['stdio', 'http'] as const)('a 2026-only upstream over %s', (transport) => {
  let fixture: HttpFixture | undefined;
  let running: RunningToolkit;
  const events = recordEvents<ToolkitEvent>();
  const asked: { method: UpstreamRequest['method']; caller: string }[] = [];
  const handler: UpstreamRequestHandler = {
    capabilities: { sampling: true, elicitation: true },
    handle: (request, context) => {
      asked.push({ method: request.method, caller: context.caller });
      return Promise.resolve(request.method === 'sampling/createMessage' ? sampled : accepted);
    },
  };

  beforeAll(async () => {
    const toolkit = createToolkit({ upstreamRequests: handler });
    toolkit.onEvent(events.push);
    if (transport === 'http') {
      fixture = await startHttpFixture({ server: fixtureCommand('http-2026') });
      toolkit.addConnector(fixture.url, { namespace: 'fx' });
    } else {
      toolkit.addConnector(fixtureCommand('stdio-2026'), { namespace: 'fx' });
    }
    running = await runToolkit(toolkit);
  });
  afterAll(async () => {
    await running.stop();
    await fixture?.close();
  });

  it('connects in the 2026 era and lists the tools', () => {
    const { toolkit } = running;
    expect(toolkit.connectors()).toEqual([
      expect.objectContaining({ namespace: 'fx', state: 'connected', era: '2026' }),
    ]);
    expect(toolkit.connector('fx')?.server?.protocolVersion).toBe('2026-07-28');
  });

  it('calls tools: structured content of any JSON type, and isError as an execution error', async () => {
    const { toolkit } = running;
    const sum = await toolkit.callTool('fx:add', { a: 2, b: 3 });
    expect(sum.mcpResult?.structuredContent).toEqual({ sum: 5 });
    // (An own `__proto__` member, as JSON text has it: an object literal's `__proto__` is its
    // prototype instead, which JSON cannot carry and the runner refuses.)
    for (const value of [
      [1, 'two', null],
      42,
      'plain',
      true,
      JSON.parse('{"__proto__":{"x":1}}'),
    ]) {
      const result = await toolkit.callTool('fx:structured', { value });
      expect(result.mcpResult?.structuredContent).toEqual(value);
    }
    await expect(toolkit.callTool('fx:report-error', { message: 'nope' })).rejects.toMatchObject({
      code: 'execution',
    });
  });

  it('passes progress on', async () => {
    const { toolkit } = running;
    const seen: number[] = [];
    await toolkit.callTool(
      'fx:progress',
      { steps: 3 },
      {
        onProgress: (progress) => {
          seen.push(progress.progress);
        },
      },
    );
    expect(seen).toEqual([1, 2, 3]);
  });

  it('cancels a call upstream when its signal aborts', async () => {
    const { toolkit } = running;
    const controller = new AbortController();
    const call = toolkit.callTool(
      'fx:slow',
      { ms: 30_000, label: `cancel-${transport}` },
      {
        signal: controller.signal,
        onProgress: () => {
          controller.abort();
        },
      },
    );
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    const seen = await toolkit.callTool('fx:wait-cancelled', {
      label: `cancel-${transport}`,
      timeoutMs: 10_000,
    });
    expect(seen.mcpResult?.structuredContent).toEqual({ cancelled: true });
  });

  it('hears the server’s log messages', async () => {
    const { toolkit } = running;
    const from = events.events.length;
    await toolkit.callTool('fx:log', { message: `hello over ${transport}`, level: 'warning' });
    const logged = await events.waitFor((event) => event.type === 'log_message', { from });
    expect(logged).toMatchObject({
      namespace: 'fx',
      level: 'warning',
      data: `hello over ${transport}`,
    });
  });

  it('hears a list change through subscriptions/listen and lists the new tool', async () => {
    const { toolkit } = running;
    const from = events.events.length;
    await toolkit.callTool('fx:define-tool', { name: `late-${transport}` });
    await events.waitFor((event) => event.type === 'tool_list_changed', { from });
    const late = await toolkit.callTool(`fx:late-${transport}`, { text: 'here' });
    expect(text(late)).toBe('here');
  });

  it('answers the server’s input_required rounds with the toolkit’s handler, for the caller', async () => {
    const { toolkit } = running;
    asked.length = 0;
    expect(text(await toolkit.callTool('fx:sample', { prompt: 'hi' }))).toBe('from the toolkit');
    expect(JSON.parse(text(await toolkit.callTool('fx:elicit', { message: 'ok?' })))).toEqual({
      action: 'accept',
      content: { answer: 'yes' },
    });
    expect(asked.map((request) => request.method)).toEqual([
      'sampling/createMessage',
      'elicitation/create',
    ]);
  });
});
