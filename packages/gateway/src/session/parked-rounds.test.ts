// Two 2026-07-28 clients of one gateway (a single instance: `replayRounds: 'elsewhere'`) calling
// tools of one shared 2025-era stdio upstream, which ties its sampling requests to no call: the
// gateway routes them by the only caller in flight. A client that leaves a round unanswered must
// not keep the other's sampling refused as ambiguous until the round lapses.
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from '../testing/http-gateway.js';
import { callRound as call, roundOf, textOf } from '../testing/input-rounds.js';

const gateway = useHttpGateway(useFixtureToolkit(), { replayTools: ['fx__sample'] });

const sampled = (text: string) => ({
  role: 'assistant',
  model: 'test-model',
  content: { type: 'text', text },
});

/** Answers `round` of a call of `tool` with `args`, as its client's retry. */
const answer = (tool: string, args: object, round: ReturnType<typeof roundOf>, result: object) =>
  call(gateway, tool, args, { requestState: round.state, inputResponses: { [round.key]: result } });

describe('a call parked in an unanswered input round on a shared stdio upstream', () => {
  it("lets go of it for another client's sampling when its retry replays it, which still resumes it", async () => {
    // The first client gets its round and goes away (for now).
    const gone = roundOf(await call(gateway, 'fx__sample', { prompt: 'first?' }));
    // The second one's sampling is asked, not refused as ambiguous.
    const second = roundOf(await call(gateway, 'fx__sample', { prompt: 'second?' }));
    expect(second.method).toBe('sampling/createMessage');
    const done = await answer('fx__sample', { prompt: 'second?' }, second, sampled('two'));
    expect(textOf(done)).toBe('two');
    // The first client comes back: its call runs again, its answer taken from the retry.
    const back = await answer('fx__sample', { prompt: 'first?' }, gone, sampled('one'));
    expect(textOf(back)).toBe('one');
  });

  it('keeps a parked call its retry could not replay, and refuses the other sampling meanwhile', async () => {
    const parked = roundOf(await call(gateway, 'fx__elicit', { message: 'sure?' }));
    const refused = await call(gateway, 'fx__sample', { prompt: 'now?' });
    expect(refused.result?.isError).toBe(true);
    // Answered, the parked call ends as it would have, and sampling is tied again.
    const accept = { action: 'accept', content: { answer: 'yes' } };
    const ended = await answer('fx__elicit', { message: 'sure?' }, parked, accept);
    expect(textOf(ended)).toContain('yes');
    const next = roundOf(await call(gateway, 'fx__sample', { prompt: 'now?' }));
    expect(next.method).toBe('sampling/createMessage');
    await answer('fx__sample', { prompt: 'now?' }, next, sampled('ok'));
  });
});
