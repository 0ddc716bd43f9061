import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from './eras.js';
import { serveHttp, type HttpGateway } from './http/serve.js';
import { callRound as call, roundOf, textOf } from './testing/input-rounds.js';

// `mode: 'code'` for 2026-07-28 clients, with the gateway's approval on: a program's call of a
// destructive tool asks the client for approval in an input_required round while the run waits
// in its sandbox, and goes on with the answer; the program's earlier calls are not made again.
// Two instances share a request-state key (a fleet: rounds that may be replayed are handed on at
// once), and a run can only resume on the one that holds it.

const KEY = 'a-fleet-wide-request-state-key-of-32+-bytes';
const toolkits: RunningToolkit[] = [];
const gateways: HttpGateway[] = [];
let gateway: HttpGateway;
let other: HttpGateway;

async function instance(instanceId: string): Promise<HttpGateway> {
  const toolkit = createToolkit({ approval: {} });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  toolkits.push(await runToolkit(toolkit));
  const served = await serveHttp(toolkit, {
    port: 0,
    mode: 'code',
    requestStateKey: KEY,
    instanceId,
  });
  gateways.push(served);
  return served;
}

beforeAll(async () => {
  [gateway, other] = await Promise.all([instance('A'), instance('B')]);
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((served) => served.close()));
  await Promise.all(toolkits.map((running) => running.stop()));
});

/** Deletes `id` after a call that needs no approval; returns both answers. */
const program = (id: string): { code: string } => ({
  code: [
    'const { sum } = await tools.fx.add({ a: 1, b: 2 });',
    "console.log('added');",
    `const deleted = await tools.fx.delete_item({ id: ${JSON.stringify(id)} });`,
    'return { sum, deleted };',
  ].join('\n'),
});

async function deleted(): Promise<string[]> {
  const listed = await call(gateway, 'run_code', {
    code: "return await tools.fx['deleted_items']({});",
  });
  return JSON.parse(textOf(listed)) as string[];
}

describe('code mode for a 2026-07-28 client', () => {
  it('asks an inner call’s approval in an input round, and the run goes on with the answer', async () => {
    const round = roundOf(await call(gateway, 'run_code', program('round-1')));
    expect(round.method).toBe('elicitation/create');
    expect(round.message).toContain('"fx:delete-item"');
    const done = await call(gateway, 'run_code', program('round-1'), {
      requestState: round.state,
      inputResponses: { [round.key]: { action: 'accept', content: { approve: true } } },
    });
    expect(done.result?.isError).toBeUndefined();
    expect(done.result?.structuredContent).toEqual({ sum: 3, deleted: 'deleted round-1' });
    // The program ran once: one log line of the call made before the round.
    expect(textOf(done).match(/\[log\] added/g)).toHaveLength(1);
    expect((await deleted()).filter((id) => id === 'round-1')).toHaveLength(1);
  });

  it('does not run the call when the client declines', async () => {
    const round = roundOf(await call(gateway, 'run_code', program('round-2')));
    const done = await call(gateway, 'run_code', program('round-2'), {
      requestState: round.state,
      inputResponses: { [round.key]: { action: 'decline' } },
    });
    expect(done.result?.isError).toBe(true);
    expect(textOf(done)).toContain('approval');
    expect(await deleted()).not.toContain('round-2');
  });

  it('refuses a retry on the instance that does not hold the run, naming the one that does', async () => {
    const round = roundOf(await call(gateway, 'run_code', program('round-3')));
    const elsewhere = await call(other, 'run_code', program('round-3'), {
      requestState: round.state,
      inputResponses: { [round.key]: { action: 'accept', content: { approve: true } } },
    });
    expect(elsewhere.error?.code).toBe(-32602);
    expect(elsewhere.error?.message).toContain('"A"');
    expect(await deleted()).not.toContain('round-3');
  });

  it('works with the official client, which answers the round itself', async () => {
    const client = new Client(
      { name: 'code-mode-2026', version: '0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
      },
    );
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { approve: true },
    }));
    await client.connect(new StreamableHTTPClientTransport(gateway.url));
    try {
      const ran = await client.callTool({
        name: 'run_code',
        arguments: program('sdk-1'),
      });
      expect(ran.structuredContent).toEqual({ sum: 3, deleted: 'deleted sdk-1' });
    } finally {
      await client.close();
    }
  });
});
