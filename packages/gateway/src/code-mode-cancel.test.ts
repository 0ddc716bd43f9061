import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHttpGateway } from './testing/http-gateway.js';

// A `run_code` that ends early (its time bound, or the client cancelling it) cancels the tool
// calls its program still has in flight, up to the real upstream: the fixture's `slow` records
// the `notifications/cancelled` it received, and `wait-cancelled` reports it. The marker that the
// upstream has started the call is its first progress report, which the gateway forwards to the
// client under the `run_code` request's progress token.

const toolkit = useFixtureToolkit();
const gateway = useHttpGateway(toolkit, { mode: 'code', codeMode: { timeoutMs: 3_000 } });
let client: Client;
beforeAll(async () => {
  client = new Client({ name: 'code-mode-cancel-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(gateway.url));
});
afterAll(async () => {
  await client.close();
});

const slowProgram = (label: string): string =>
  `await tools.fx.slow({ ms: 600000, label: ${JSON.stringify(label)} }); return 'finished';`;

async function upstreamSawCancel(label: string): Promise<unknown> {
  const seen = await toolkit.callTool('fx:wait-cancelled', { label, timeoutMs: 15_000 });
  return seen.structured;
}

describe('gateway mode: code, cancellation', () => {
  it('cancels the upstream call in flight when run_code passes its time bound', async () => {
    let started = false;
    const ran = await client.callTool(
      { name: 'run_code', arguments: { code: slowProgram('code-timeout') } },
      {
        onprogress: () => {
          started = true;
        },
        timeout: 60_000,
      },
    );
    expect(started).toBe(true);
    expect(ran.isError).toBe(true);
    expect(JSON.stringify(ran.content)).toContain('timeout');
    expect(await upstreamSawCancel('code-timeout')).toEqual({ cancelled: true });
  });

  it('cancels the upstream call in flight when the client cancels run_code', async () => {
    const controller = new AbortController();
    const call = client
      .callTool(
        { name: 'run_code', arguments: { code: slowProgram('code-abort') } },
        {
          signal: controller.signal,
          onprogress: () => {
            controller.abort();
          },
        },
      )
      .then(
        () => 'answered',
        () => 'aborted',
      );
    expect(await call).toBe('aborted');
    expect(await upstreamSawCancel('code-abort')).toEqual({ cancelled: true });
  });
});
