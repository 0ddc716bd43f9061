// Two gateways sharing a requestStateKey and a record of used states, each with its own toolkit
// (approval for destructive tools) and its own fixture upstream over stdio, as two instances
// behind a round-robin balancer would be: a 2026 client's approval answer reaches the instance
// that did not ask. The approval is the gateway's own question, asked before the call reaches
// its upstream, so the other instance runs the call from the start, once, whatever the tool.
import { fixtureCommand } from '@toolplane/fixtures';
import { createToolkit, type ApprovalDecision } from '@toolplane/toolkit';
import { runToolkit, type RunningToolkit } from '@toolplane/toolkit/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveHttp, type HttpGateway, type ServeHttpOptions } from '../http/serve.js';
import type { ToolCallRecord } from '../observe/observer.js';
import { callRound as call, roundOf, textOf } from '../testing/input-rounds.js';

const KEY = 'a-fleet-wide-request-state-key-of-32+-bytes';

const toolkits: RunningToolkit[] = [];
const gateways: HttpGateway[] = [];
const decisions = new Map<string, ApprovalDecision[]>();
// What each instance's observer (its metrics, its log's audit lines) heard of each call.
const calls = new Map<string, ToolCallRecord[]>();

// One record of used states for the whole fleet, as the shared store keeps it.
const spent = new Set<string>();
const spendRequestState = (nonce: string): Promise<boolean> => {
  const first = !spent.has(nonce);
  spent.add(nonce);
  return Promise.resolve(first);
};

async function instance(
  instanceId: string,
  options: Partial<ServeHttpOptions> = {},
  approvalTimeoutMs?: number,
): Promise<HttpGateway> {
  const seen: ApprovalDecision[] = [];
  decisions.set(instanceId, seen);
  const heard: ToolCallRecord[] = [];
  calls.set(instanceId, heard);
  const toolkit = createToolkit({
    approval: {
      destructive: true,
      tools: ['fx:elicit'],
      ...(approvalTimeoutMs === undefined ? {} : { timeoutMs: approvalTimeoutMs }),
      onDecision: (decision) => seen.push(decision),
    },
  });
  toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
  const running = await runToolkit(toolkit);
  toolkits.push(running);
  const gateway = await serveHttp(running.toolkit, {
    port: 0,
    instanceId,
    requestStateKey: KEY,
    spendRequestState,
    observe: { toolCall: (record) => heard.push(record) },
    ...options,
  });
  gateways.push(gateway);
  return gateway;
}

let a: HttpGateway;
let b: HttpGateway;

beforeAll(async () => {
  [a, b] = await Promise.all([instance('A'), instance('B')]);
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await Promise.all(toolkits.map((running) => running.stop()));
});

const accept = { action: 'accept', content: { approve: true } };

/** What `delete-item` deleted on the upstream of every instance given, all together. */
async function deletedOn(...instances: HttpGateway[]): Promise<string[]> {
  const lists = await Promise.all(
    instances.map(async (gateway) => {
      const answer = await call(gateway, 'fx__deleted-items', {});
      return JSON.parse(textOf(answer)) as string[];
    }),
  );
  return lists.flat();
}

/**
 * Waits until the call held on `instanceId` for the item `id` ended as handed on to its retry
 * (`input_required`, as its observer heard it), and checks that nothing was refused there: the
 * instance the retry reaches decides.
 */
async function heldCallEnded(instanceId: string, id: string): Promise<void> {
  await vi.waitFor(
    () => {
      const ended = calls
        .get(instanceId)
        ?.filter((record) => (record.args as { id?: unknown }).id === id)
        .map((record) => record.outcome);
      expect(ended).toEqual(['input_required']);
    },
    { timeout: 10_000, interval: 20 },
  );
  expect(decisions.get(instanceId)?.filter((d) => d.type === 'refused')).toEqual([]);
}

describe('an approval answered on the instance that did not ask', () => {
  it('runs a destructive call there, once, after the approval', async () => {
    const round = roundOf(await call(a, 'fx__delete-item', { id: 'moved-1' }));
    expect(round.method).toBe('elicitation/create');
    expect(round.message).toMatch(/delete-item/);
    // Asked, and nothing ran yet: the call held on A ends without running.
    await heldCallEnded('A', 'moved-1');
    expect(await deletedOn(a, b)).not.toContain('moved-1');

    const retry = { requestState: round.state, inputResponses: { [round.key]: accept } };
    const done = await call(b, 'fx__delete-item', { id: 'moved-1' }, retry);
    expect(done.error).toBeUndefined();
    expect(textOf(done)).toBe('deleted moved-1');
    // The state serves once, fleet-wide: on A and on B alike.
    expect((await call(a, 'fx__delete-item', { id: 'moved-1' }, retry)).error).toMatchObject({
      code: -32602,
    });
    expect((await call(b, 'fx__delete-item', { id: 'moved-1' }, retry)).error).toMatchObject({
      code: -32602,
    });
    expect((await deletedOn(a, b)).filter((id) => id === 'moved-1')).toEqual(['moved-1']);
    // Counted once as a call that ran: on A the request that got the round, handed on to its
    // retry (not a cancelled call), on B the call itself.
    const outcomes = (id: string) =>
      calls
        .get(id)
        ?.filter((record) => record.tool === 'fx:delete-item')
        .map((record) => record.outcome);
    await vi.waitFor(() => {
      expect(outcomes('A')).toEqual(['input_required']);
    });
    expect(outcomes('B')).toEqual(['ok']);
  });

  it('runs the call nowhere when the approval is declined there', async () => {
    const round = roundOf(await call(a, 'fx__delete-item', { id: 'declined-1' }));
    const declined = await call(
      b,
      'fx__delete-item',
      { id: 'declined-1' },
      { requestState: round.state, inputResponses: { [round.key]: { action: 'decline' } } },
    );
    expect(declined.result?.isError).toBe(true);
    expect(textOf(declined)).toMatch(/approval_denied/);
    await heldCallEnded('A', 'declined-1');
    expect(await deletedOn(a, b)).not.toContain('declined-1');
  });

  it('runs only the arguments the approval was asked for, not the retry’s', async () => {
    const round = roundOf(await call(a, 'fx__delete-item', { id: 'asked-2' }));
    await call(
      b,
      'fx__delete-item',
      { id: 'other-2' },
      { requestState: round.state, inputResponses: { [round.key]: accept } },
    );
    const deleted = await deletedOn(a, b);
    expect(deleted).not.toContain('other-2');
    expect(deleted.filter((id) => id === 'asked-2')).toEqual(['asked-2']);
  });

  it('keeps refusing a round the upstream asks after the call was dispatched', async () => {
    // fx__elicit needs approval here (approval.tools) and is neither read-only nor idempotent.
    const approval = roundOf(await call(a, 'fx__elicit', { message: 'after?' }));
    expect(approval.message).toMatch(/Approve a call/);
    const upstream = roundOf(
      await call(
        b,
        'fx__elicit',
        { message: 'after?' },
        { requestState: approval.state, inputResponses: { [approval.key]: accept } },
      ),
    );
    // The approval was replayed on B, which dispatched the call: the upstream's own question
    // waits on B, and A may not run it again.
    expect(upstream.message).toBe('after?');
    const answer = { [upstream.key]: { action: 'accept', content: { answer: 'yes' } } };
    const refused = await call(
      a,
      'fx__elicit',
      {},
      { requestState: upstream.state, inputResponses: answer },
    );
    expect(refused.error).toMatchObject({ code: -32602, data: { instance: 'B' } });
    const done = await call(
      b,
      'fx__elicit',
      {},
      { requestState: upstream.state, inputResponses: answer },
    );
    expect(JSON.parse(textOf(done))).toEqual({ action: 'accept', content: { answer: 'yes' } });
  });
});

describe('an approval answered after its timeout, on another instance', () => {
  it('is no answer: the call runs nowhere, and is asked again', async () => {
    // The approval on E lapses after 100 ms; F asks again with its own (default) timeout.
    const [early, late] = await Promise.all([instance('E', {}, 100), instance('F')]);
    const round = roundOf(await call(early, 'fx__delete-item', { id: 'late-1' }));
    // Past the approval's timeoutMs (100 ms), as the held call would have stopped waiting.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const retried = await call(
      late,
      'fx__delete-item',
      { id: 'late-1' },
      { requestState: round.state, inputResponses: { [round.key]: accept } },
    );
    const again = roundOf(retried);
    expect(again.message).toMatch(/delete-item/);
    expect(await deletedOn(early, late)).not.toContain('late-1');
    const declined = await call(
      late,
      'fx__delete-item',
      {},
      { requestState: again.state, inputResponses: { [again.key]: { action: 'decline' } } },
    );
    expect(textOf(declined)).toMatch(/approval_denied/);
    expect(await deletedOn(early, late)).not.toContain('late-1');
  }, 60_000);
});

describe("with replayRounds 'elsewhere', the call held on the instance that asked", () => {
  let g: HttpGateway;
  let h: HttpGateway;

  beforeAll(async () => {
    // G's approval lapses after a second; H keeps the default.
    [g, h] = await Promise.all([
      instance('G', { replayRounds: 'elsewhere' }, 1_000),
      instance('H', { replayRounds: 'elsewhere' }),
    ]);
  }, 60_000);

  it('ends when its approval lapses, as handed on, while the retry ran elsewhere', async () => {
    const round = roundOf(await call(g, 'fx__delete-item', { id: 'lapsed-1' }));
    const done = await call(
      h,
      'fx__delete-item',
      { id: 'lapsed-1' },
      { requestState: round.state, inputResponses: { [round.key]: accept } },
    );
    expect(textOf(done)).toBe('deleted lapsed-1');
    // G cannot learn that H spent the state; its held call ends with its approval's timeoutMs,
    // counted as the request it was (answered with a round), not as a refusal.
    await heldCallEnded('G', 'lapsed-1');
    expect((await deletedOn(g, h)).filter((id) => id === 'lapsed-1')).toEqual(['lapsed-1']);
  });

  it('ends at once when the state comes back to it after another instance spent it', async () => {
    // H asks (its approval waits two minutes), G runs the retry, then the state comes back to H.
    const round = roundOf(await call(h, 'fx__delete-item', { id: 'spent-1' }));
    const retry = { requestState: round.state, inputResponses: { [round.key]: accept } };
    expect(textOf(await call(g, 'fx__delete-item', { id: 'spent-1' }, retry))).toBe(
      'deleted spent-1',
    );
    const back = await call(h, 'fx__delete-item', { id: 'spent-1' }, retry);
    expect(back.error).toMatchObject({ code: -32602 });
    await heldCallEnded('H', 'spent-1');
    expect((await deletedOn(g, h)).filter((id) => id === 'spent-1')).toEqual(['spent-1']);
  });
});

describe("search mode's call_tool of a 2026 client", () => {
  let c: HttpGateway;
  let d: HttpGateway;

  beforeAll(async () => {
    [c, d] = await Promise.all([
      instance('C', { mode: 'search' }),
      instance('D', { mode: 'search' }),
    ]);
  }, 60_000);

  const deleted = async (gateway: HttpGateway): Promise<string[]> =>
    JSON.parse(
      textOf(await call(gateway, 'call_tool', { id: 'fx:deleted-items', arguments: {} })),
    ) as string[];

  it('asks for approval in an input round, and runs the call once on the other instance', async () => {
    const args = { id: 'fx:delete-item', arguments: { id: 'searched-1' } };
    const round = roundOf(await call(c, 'call_tool', args));
    expect(round.method).toBe('elicitation/create');
    expect(round.message).toMatch(/delete-item/);
    const done = await call(d, 'call_tool', args, {
      requestState: round.state,
      inputResponses: { [round.key]: accept },
    });
    expect(textOf(done)).toBe('deleted searched-1');
    const all = [...(await deleted(c)), ...(await deleted(d))];
    expect(all.filter((id) => id === 'searched-1')).toEqual(['searched-1']);
  });

  it('runs nothing when the approval is declined', async () => {
    const args = { id: 'fx:delete-item', arguments: { id: 'searched-2' } };
    const round = roundOf(await call(c, 'call_tool', args));
    const declined = await call(d, 'call_tool', args, {
      requestState: round.state,
      inputResponses: { [round.key]: { action: 'decline' } },
    });
    expect(textOf(declined)).toMatch(/approval_denied/);
    expect([...(await deleted(c)), ...(await deleted(d))]).not.toContain('searched-2');
  });
});
