// Two gateways sharing a requestStateKey, each with its own toolkit and its own 2025-era fixture
// upstream over stdio, as two instances behind a balancer would be: a 2026 client's retry of an
// input_required round sent to the instance that does not hold the call.
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, defineTool, getSession } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from '../http/serve.js';
import { callRound as call, roundOf, textOf } from '../testing/input-rounds.js';
import { MAX_REPLAY_STATE_BYTES, canonicalJson, paramsDigest } from './request-state.js';

const KEY = 'a-fleet-wide-request-state-key-of-32+-bytes';

// Asks two questions, one after the other; read-only, so a retry may replay it anywhere.
const twice = defineTool({
  name: 'twice',
  description: 'Asks for a first and a last name.',
  input: z.object({ who: z.string() }),
  annotations: { readOnlyHint: true },
  run: async ({ who }) => {
    const ask = (field: string) =>
      getSession().elicit({
        message: `${who}: ${field}?`,
        requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } } },
      });
    const first = await ask('first');
    const last = await ask('last');
    return { first: first.content?.first, last: last.content?.last };
  },
});

// Asks once and says nothing about being safe to run twice.
const write = defineTool({
  name: 'write',
  description: 'Asks before writing.',
  input: z.object({}),
  run: async () =>
    (
      await getSession().elicit({
        message: 'write?',
        requestedSchema: { type: 'object', properties: {} },
      })
    ).action,
});

const toolkits: RunningToolkit[] = [];
const gateways: HttpGateway[] = [];

async function instance(options: Partial<ServeHttpOptions>): Promise<HttpGateway> {
  const toolkit = createToolkit({ tools: [twice, write] });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  const running = await runToolkit(toolkit);
  toolkits.push(running);
  const gateway = await serveHttp(running.toolkit, {
    port: 0,
    requestStateKey: KEY,
    replayTools: ['fx__elicit', 'fx__sample'],
    ...options,
  });
  gateways.push(gateway);
  return gateway;
}

let a: HttpGateway;
let b: HttpGateway;

beforeAll(async () => {
  [a, b] = await Promise.all([instance({ instanceId: 'A' }), instance({ instanceId: 'B' })]);
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await Promise.all(toolkits.map((running) => running.stop()));
});

describe('an input_required retry on the instance that does not hold the call', () => {
  it('replays an eliciting upstream tool there and answers from the retry', async () => {
    const round = roundOf(await call(a, 'fx__elicit', { message: 'sure?' }));
    expect(round.method).toBe('elicitation/create');
    const done = await call(
      b,
      'fx__elicit',
      { message: 'sure?' },
      {
        requestState: round.state,
        inputResponses: { [round.key]: { action: 'accept', content: { answer: 'on B' } } },
      },
    );
    expect(JSON.parse(textOf(done))).toEqual({ action: 'accept', content: { answer: 'on B' } });
  });

  it('replays a sampling upstream tool there', async () => {
    const round = roundOf(await call(a, 'fx__sample', { prompt: 'say hi' }));
    expect(round.method).toBe('sampling/createMessage');
    const done = await call(
      b,
      'fx__sample',
      { prompt: 'say hi' },
      {
        requestState: round.state,
        inputResponses: {
          [round.key]: {
            role: 'assistant',
            model: 'm',
            content: { type: 'text', text: 'hi from B' },
          },
        },
      },
    );
    expect(textOf(done)).toBe('hi from B');
  });

  it('carries every answer so far: two rounds, each retry on the other instance', async () => {
    const first = roundOf(await call(a, 'builtin__twice', { who: 'ada' }));
    expect(first.message).toBe('ada: first?');
    // B replays: the first question is answered from the state, the second is a new round.
    const second = roundOf(
      await call(
        b,
        'builtin__twice',
        { who: 'ada' },
        {
          requestState: first.state,
          inputResponses: { [first.key]: { action: 'accept', content: { first: 'Ada' } } },
        },
      ),
    );
    expect(second.message).toBe('ada: last?');
    // A no longer holds this flow (B does): it replays both answers.
    const done = await call(
      a,
      'builtin__twice',
      { who: 'ada' },
      {
        requestState: second.state,
        inputResponses: { [second.key]: { action: 'accept', content: { last: 'Lovelace' } } },
      },
    );
    expect(done.result?.structuredContent).toEqual({ first: 'Ada', last: 'Lovelace' });
  });

  it('refuses a tool that is neither read-only nor idempotent with -32602 naming the holder', async () => {
    const round = roundOf(await call(a, 'builtin__write', {}));
    const retry = {
      requestState: round.state,
      inputResponses: { [round.key]: { action: 'accept', content: {} } },
    };
    const refused = await call(b, 'builtin__write', {}, retry);
    expect(refused.error).toMatchObject({ code: -32602, data: { instance: 'A' } });
    expect(refused.error?.message).toMatch(/instance "A"/);
    expect(refused.error?.message).toMatch(/readOnlyHint/);
    // Its own instance still resumes it.
    expect(textOf(await call(a, 'builtin__write', {}, retry))).toBe('accept');
  });

  it('refuses to replay arguments too large for the state, naming the bound', async () => {
    const big = 'x'.repeat(MAX_REPLAY_STATE_BYTES + 1);
    const round = roundOf(await call(a, 'fx__elicit', { message: big }));
    const refused = await call(
      b,
      'fx__elicit',
      { message: big },
      {
        requestState: round.state,
        inputResponses: { [round.key]: { action: 'decline' } },
      },
    );
    expect(refused.error).toMatchObject({ code: -32602, data: { instance: 'A' } });
    expect(refused.error?.message).toMatch(/KiB/);
    expect(round.state.length).toBeLessThan(4_096);
    // It waits on its own instance, which resumes it.
    const done = await call(
      a,
      'fx__elicit',
      { message: big },
      {
        requestState: round.state,
        inputResponses: { [round.key]: { action: 'decline' } },
      },
    );
    expect(textOf(done)).toMatch(/decline/);
  });

  it('refuses a forged, reused or expired state with -32602', async () => {
    const round = roundOf(await call(a, 'fx__elicit', { message: 'once?' }));
    const answer = { [round.key]: { action: 'decline' } };
    const forged = `${round.state.slice(0, -2)}${round.state.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(
      (await call(b, 'fx__elicit', {}, { requestState: forged, inputResponses: answer })).error,
    ).toMatchObject({
      code: -32602,
    });
    expect(
      textOf(
        await call(b, 'fx__elicit', {}, { requestState: round.state, inputResponses: answer }),
      ),
    ).toMatch(/decline/);
    const again = await call(
      b,
      'fx__elicit',
      {},
      { requestState: round.state, inputResponses: answer },
    );
    expect(again.error).toMatchObject({ code: -32602 });
    expect(again.error?.message).toMatch(/already used/);

    // Sealed with another key: refused, and the message says every instance needs the same one.
    const other = await instance({
      instanceId: 'C',
      requestStateKey: 'another-key-another-key-another-key!',
    });
    const stranger = await call(
      other,
      'fx__elicit',
      {},
      { requestState: round.state, inputResponses: answer },
    );
    expect(stranger.error?.message).toMatch(/same requestStateKey/);

    const brief = await instance({ instanceId: 'D', inputRoundTtlMs: 1 });
    const late = roundOf(await call(brief, 'fx__elicit', { message: 'late?' }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const expired = await call(
      b,
      'fx__elicit',
      {},
      { requestState: late.state, inputResponses: answer },
    );
    expect(expired.error).toMatchObject({ code: -32602 });
    expect(expired.error?.message).toMatch(/expired/);
  }, 60_000);

  it('serves a state once on any instance when the fleet shares spendRequestState', async () => {
    const spent = new Set<string>();
    const spendRequestState = (nonce: string) => {
      const first = !spent.has(nonce);
      spent.add(nonce);
      return Promise.resolve(first);
    };
    const [c, d] = await Promise.all([
      instance({ instanceId: 'C2', spendRequestState }),
      instance({ instanceId: 'D2', spendRequestState }),
    ]);
    const round = roundOf(await call(c, 'fx__elicit', { message: 'one?' }));
    const retry = {
      requestState: round.state,
      inputResponses: { [round.key]: { action: 'decline' } },
    };
    expect(textOf(await call(d, 'fx__elicit', {}, retry))).toMatch(/decline/);
    // Without the shared record, c would replay it a second time (each instance remembers only
    // the states it has seen).
    expect((await call(c, 'fx__elicit', {}, retry)).error).toMatchObject({ code: -32602 });
  }, 60_000);
});

describe('paramsDigest', () => {
  it('ignores key order and _meta, and tells different params apart', () => {
    expect(paramsDigest({ a: 1, b: { c: [1, 2] }, _meta: { t: 1 } })).toBe(
      paramsDigest({ b: { c: [1, 2] }, a: 1 }),
    );
    expect(paramsDigest({ a: 1 })).not.toBe(paramsDigest({ a: 2 }));
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":null}'))).toBe(
      '{"__proto__":{"x":1},"a":null}',
    );
  });
});
