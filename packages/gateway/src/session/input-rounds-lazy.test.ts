// InputRounds.startLazily, the call lane's way into 2026-07-28 input rounds: a call becomes a
// flow only when its upstream first asks, and the flow cancels the call through the caller's own
// abort. Real rounds and real sealed states; the context is the plain data the rounds read.
import type {
  CallToolResult,
  InputRequiredResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { UpstreamRequest } from '@toolplane/toolkit';
import { describe, expect, it } from 'vitest';
import { InputRounds } from './input-rounds.js';
import type { CallIdentity, RunCall } from './round-calls.js';

const KEY = 'a-request-state-key-of-at-least-32-bytes';
const CALL: CallIdentity = { tool: 'ask', arguments: {}, refusal: 'not read-only' };
const ELICIT: UpstreamRequest = {
  method: 'elicitation/create',
  params: { message: 'sure?', requestedSchema: { type: 'object', properties: {} } },
};
const DONE: CallToolResult = { content: [{ type: 'text', text: 'done' }] };

/** A request's context as the rounds read it: its signal (and no caller to bind to). */
function contextOf(signal: AbortSignal): ServerContext {
  return { mcpReq: { signal } } as unknown as ServerContext;
}

/** A lazily started call on `rounds`, with what its abort was asked to do. */
function start(rounds: InputRounds, run: RunCall, call = CALL) {
  const controller = new AbortController();
  const aborted: Error[] = [];
  let onAbort: (why: Error) => void = () => undefined;
  const abortSeen = new Promise<Error>((resolve) => {
    onAbort = resolve;
  });
  const answer = rounds.startLazily(run, call, contextOf(controller.signal), (why) => {
    aborted.push(why);
    onAbort(why);
    controller.abort(why);
  });
  return { answer, aborted, abortSeen, signal: controller.signal };
}

/** The single round of an input_required answer: its key and request. */
function roundOf(answer: CallToolResult | InputRequiredResult) {
  expect(answer).toMatchObject({ resultType: 'input_required' });
  const { inputRequests, requestState } = answer as InputRequiredResult;
  const [[key, request] = []] = Object.entries(inputRequests ?? {});
  return { key: key ?? '', request, requestState: requestState ?? '' };
}

describe('InputRounds.startLazily', () => {
  it('answers a call that never asks with its result, making no flow', async () => {
    const rounds = new InputRounds({ key: KEY });
    let seen: AbortSignal | undefined;
    const { answer, aborted, signal } = start(rounds, (callSignal) => {
      seen = callSignal;
      return Promise.resolve(DONE);
    });
    expect(await answer).toEqual(DONE);
    expect(seen).toBe(signal);
    expect(rounds.size).toBe(0);
    expect(aborted).toEqual([]);
  });

  it('passes on the error of a call that never asks', async () => {
    const rounds = new InputRounds({ key: KEY });
    const { answer } = start(rounds, () => Promise.reject(new Error('upstream failed')));
    await expect(answer).rejects.toThrow('upstream failed');
    expect(rounds.size).toBe(0);
  });

  it('answers with the first round once the upstream asks, and resumes with the retry', async () => {
    const rounds = new InputRounds({ key: KEY });
    const { answer } = start(rounds, async (_signal, requestInput) => {
      await Promise.resolve();
      const reply = (await requestInput(ELICIT)) as { action: string };
      return { content: [{ type: 'text', text: reply.action }] };
    });
    const { key, request, requestState } = roundOf(await answer);
    expect(request).toEqual(ELICIT);
    expect(rounds.size).toBe(1);
    const retry = new AbortController();
    const final = await rounds.resume(requestState, {
      method: 'tools/call',
      responses: { [key]: { action: 'accept' } },
      ctx: contextOf(retry.signal),
      replay: () => Promise.resolve('not replayed in this test'),
    });
    expect(final).toEqual({ content: [{ type: 'text', text: 'accept' }] });
    expect(rounds.size).toBe(0);
  });

  it('takes a round the upstream asks before the call has even returned', async () => {
    const rounds = new InputRounds({ key: KEY });
    const { answer } = start(rounds, (_signal, requestInput) => {
      const asked = requestInput(ELICIT);
      return asked.then(() => DONE);
    });
    expect(roundOf(await answer).request).toEqual(ELICIT);
    rounds.dispose();
  });

  it('cancels the call through its abort when the client does not answer in time', async () => {
    const rounds = new InputRounds({ key: KEY, ttlMs: 10 });
    const { answer, abortSeen } = start(rounds, async (_signal, requestInput) => {
      await requestInput(ELICIT);
      return DONE;
    });
    roundOf(await answer);
    expect((await abortSeen).message).toMatch(/in time/);
    expect(rounds.size).toBe(0);
  });

  it('writes the first round before releasing a call whose retry replays it', async () => {
    const rounds = new InputRounds({ key: KEY, release: true });
    const replayable = { ...CALL, refusal: undefined };
    const { answer, aborted } = start(
      rounds,
      async (signal, requestInput) => {
        await requestInput(ELICIT);
        signal.throwIfAborted();
        return DONE;
      },
      replayable,
    );
    const round = await answer;
    expect(round).toMatchObject({ resultType: 'input_required' });
    // Released: the call held here was cancelled, its retry runs it again wherever it lands.
    expect(aborted).toHaveLength(1);
    expect(rounds.size).toBe(0);
  });

  it('cancels the call through its abort when the gateway closes', async () => {
    const rounds = new InputRounds({ key: KEY });
    const { answer, abortSeen } = start(rounds, async (_signal, requestInput) => {
      await requestInput(ELICIT);
      return DONE;
    });
    roundOf(await answer);
    rounds.dispose();
    expect((await abortSeen).message).toMatch(/closed/);
  });
});
