import { fixtureCommand } from '@toolplane/fixtures';
import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamRequest, UpstreamRequestHandler } from '../connectors/connector.js';
import { runToolkit, type RunningToolkit } from '../testing/run-toolkit.js';
import { createToolkit, type ToolkitOptions } from './toolkit.js';

// A server's sampling and elicitation during the library's own calls reach the toolkit's handler
// (or the call's own answerer) with nothing but a plain call.

// eslint-disable-next-line @typescript-eslint/no-deprecated -- sampling is bridged in both eras
function sampled(text: string): CreateMessageResult {
  return { role: 'assistant', model: 'test', content: { type: 'text', text } };
}

const running: RunningToolkit[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

async function start(options: ToolkitOptions): Promise<RunningToolkit> {
  const toolkit = createToolkit(options);
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  const started = await runToolkit(toolkit);
  running.push(started);
  return started;
}

function text(result: { mcpResult?: { content: unknown[] } }): string {
  return (result.mcpResult?.content as { text?: string }[]).map((block) => block.text).join('');
}

describe('upstream requests during toolkit calls', () => {
  it('reach the toolkit’s handler from a plain call', async () => {
    const seen: UpstreamRequest['method'][] = [];
    const handler: UpstreamRequestHandler = {
      capabilities: { sampling: true, elicitation: true },
      handle: (request) => {
        seen.push(request.method);
        return Promise.resolve(
          request.method === 'sampling/createMessage'
            ? sampled('from the handler')
            : ({ action: 'accept', content: { answer: 'yes' } } satisfies ElicitResult),
        );
      },
    };
    const { toolkit } = await start({ upstreamRequests: handler });
    expect(text(await toolkit.callTool('fx:sample', { prompt: 'hi' }))).toBe('from the handler');
    expect(JSON.parse(text(await toolkit.callTool('fx:elicit', { message: 'ok?' })))).toEqual({
      action: 'accept',
      content: { answer: 'yes' },
    });
    expect(seen).toEqual(['sampling/createMessage', 'elicitation/create']);
  });

  it('reach a call’s own answerer first, and others the toolkit’s handler', async () => {
    const handler: UpstreamRequestHandler = {
      capabilities: { sampling: true },
      handle: () => Promise.resolve(sampled('toolkit')),
    };
    const { toolkit } = await start({ upstreamRequests: handler });
    // One after the other: over stdio a request names no call, so only a lone call is tied to it.
    const own = await toolkit.callTool(
      'fx:sample',
      { prompt: 'a' },
      { onUpstreamRequest: () => Promise.resolve(sampled('this call')) },
    );
    const shared = await toolkit.callTool('fx:sample', { prompt: 'b' });
    expect(text(own)).toBe('this call');
    expect(text(shared)).toBe('toolkit');
  });
});
