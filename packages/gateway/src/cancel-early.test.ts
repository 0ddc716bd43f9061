import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createToolkit, defineTool } from '@toolplane/toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { serveHttp, type HttpGateway } from './http/serve.js';
import { openSession, post } from './testing/answer-clients.js';

// A client that cancels a call at once: over Streamable HTTP the call and its cancellation
// travel apart (2025-11-25: two POSTs; 2026-07-28: the call's own response, closed), so the
// cancellation may reach the gateway before the call does. Every call the gateway starts must
// then end cancelled, never run on for nobody (here: a minute).

const started = new Set<string>();
const cancelled = new Set<string>();
const slow = defineTool({
  name: 'slow',
  description: 'Waits a minute unless cancelled; notes its start and its cancellation.',
  input: z.object({ label: z.string() }),
  run: ({ label }, { signal }) => {
    started.add(label);
    return new Promise<string>((resolve) => {
      const timer = setTimeout(() => {
        resolve('done');
      }, 60_000);
      const onAbort = (): void => {
        clearTimeout(timer);
        cancelled.add(label);
        resolve('cancelled');
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  },
});

describe.each(['legacy', 'modern'] as const)('a %s call cancelled as soon as it is sent', (era) => {
  const toolkit = createToolkit({ tools: [slow] });
  let gateway: HttpGateway;
  let client: Client;
  beforeAll(async () => {
    gateway = await serveHttp(toolkit, { port: 0 });
    client = new Client(
      { name: `cancel-early-${era}`, version: '0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
    );
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    expect(client.getProtocolEra()).toBe(era);
  });
  afterAll(async () => {
    await client.close();
    await gateway.close();
    await toolkit.close();
  });

  it('ends cancelled whenever the gateway started it', async () => {
    // Aborted at once, after a microtask, after a macrotask, and a little later: each lands
    // at another step of the gateway's way.
    const waits = [
      () => undefined,
      () => Promise.resolve(),
      () => new Promise<void>((resolve) => setImmediate(resolve)),
      () => new Promise<void>((resolve) => setTimeout(resolve, 5)),
    ];
    const labels: string[] = [];
    for (let round = 0; round < 10; round++) {
      for (const [i, wait] of waits.entries()) {
        const label = `${era}-${String(round)}-${String(i)}`;
        labels.push(label);
        const controller = new AbortController();
        const call = client.callTool(
          { name: 'builtin__slow', arguments: { label } },
          { signal: controller.signal },
        );
        await wait();
        controller.abort();
        await expect(call).rejects.toThrow();
      }
    }
    // A started call hears its cancellation once the gateway has it: wait for every one.
    await expect
      .poll(() => labels.filter((label) => started.has(label) && !cancelled.has(label)), {
        timeout: 10_000,
      })
      .toEqual([]);
    expect(labels.some((label) => started.has(label))).toBe(true);
  });
});

describe('a cancellation read before its call, over 2025-11-25 HTTP', () => {
  const toolkit = createToolkit({ tools: [slow] });
  let gateway: HttpGateway;
  beforeAll(async () => {
    gateway = await serveHttp(toolkit, { port: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await toolkit.close();
  });

  it("cancels the call when it comes, and ends the call's POST", async () => {
    const session = await openSession(gateway.url);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    expect((await post(gateway.url, JSON.stringify(cancel), session))?.status).toBe(202);
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'builtin__slow', arguments: { label: 'crossed' } },
    };
    // A cancelled call gets no answer, and its POST ends with none (undefined: still open).
    const answer = await post(gateway.url, JSON.stringify(call), session);
    expect(answer?.body.includes('"result"')).toBe(false);
    expect(answer).toBeDefined();
    await expect
      .poll(() => !started.has('crossed') || cancelled.has('crossed'), { timeout: 10_000 })
      .toBe(true);
  });
});
