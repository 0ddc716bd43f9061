import { callModern } from '@toolplane/fixtures';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { useHttpGateway } from './testing/http-gateway.js';

// Approval answers a 2026-07-28 client sends without being asked, or for another call: the
// destructive call never runs on them. Raw requests, as a client library would not send them.

const gateway = useHttpGateway(useFixtureToolkit({ approval: { destructive: true } }));

// A client that can answer a form, and nothing else.
const capabilities = { elicitation: { form: {} } };
const accept = { action: 'accept', content: { approve: true } };

interface Answer {
  readonly result?: {
    resultType?: string;
    isError?: boolean;
    inputRequests?: Record<string, unknown>;
    requestState?: string;
    content?: { text?: string }[];
  };
  readonly error?: { code: number };
}

/** A raw 2026 tools/call; `params` adds a retry's `requestState` and `inputResponses`. */
const call = (name: string, args: object, params: object = {}) =>
  callModern<Answer>(gateway.url, name, args, { params, capabilities });

async function deleted(): Promise<string> {
  const answer = await call('fx__deleted-items', {});
  return answer.result?.content?.[0]?.text ?? '';
}

describe('approval answers a 2026 client was not asked for', () => {
  it('asks afresh when a call brings an accept it was never sent, and runs nothing yet', async () => {
    const answer = await call(
      'fx__delete-item',
      { id: 'unasked' },
      { inputResponses: { approval: accept } },
    );
    // Either refused outright or asked properly: never run on the unsolicited answer.
    if (answer.error === undefined) expect(answer.result?.resultType).toBe('input_required');
    expect(await deleted()).not.toContain('unasked');
  });

  it('runs only the call an accept answered, once, when its retry names other arguments', async () => {
    const first = await call('fx__delete-item', { id: 'asked-a' });
    expect(first.result?.resultType).toBe('input_required');
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const answers = { [key ?? '']: accept };
    const state = first.result?.requestState;
    // The retry resumes the call its requestState holds (A, whose form was accepted); the
    // arguments it names instead (B) are never approved, so B never runs.
    await call(
      'fx__delete-item',
      { id: 'other-b' },
      { requestState: state, inputResponses: answers },
    );
    // The same answer again is spent: nothing runs twice.
    const replay = await call(
      'fx__delete-item',
      { id: 'asked-a' },
      { requestState: state, inputResponses: answers },
    );
    expect(replay.error?.code).toBe(-32602);
    const list = JSON.parse(await deleted()) as string[];
    expect(list).not.toContain('other-b');
    expect(list.filter((id) => id === 'asked-a')).toHaveLength(1);
  });
});
