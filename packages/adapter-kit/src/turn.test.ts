import { childPids } from '@toolplane/fixtures';
import { createIndex } from '@toolplane/toolindex';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { createLocalRegistry, createRunner, mcpToolResult } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { exposeTools } from './exposed.js';
import { outcomeText, type CallOutcome } from './outcomes.js';
import { parseArguments, runCalls, type CallProgress, type ToolCallRequest } from './turn.js';

const PNG = 'iVBORw0KGgo=';
let active = 0;
let peak = 0;
let counted = 0;
const local = createLocalRegistry()
  .register('count', () => ({ count: ++counted }))
  .register('add', (args) => {
    const { a, b } = args as { a: number; b: number };
    return { sum: a + b };
  })
  .register('wait', async (_args, { signal }) => {
    active++;
    peak = Math.max(peak, active);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 30);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new Error('aborted'));
        });
      });
      return 'waited';
    } finally {
      active--;
    }
  })
  // Ignores its signal: the call must still end at its timeout.
  .register('hang', () => new Promise(() => undefined))
  .register('big', () => 'x'.repeat(10 * 1024 * 1024))
  .register('picture', () =>
    mcpToolResult({
      content: [
        { type: 'text', text: 'a picture' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
    }),
  )
  .register('boom', () => {
    throw new Error('it broke');
  });
const index = createIndex();
const object = { type: 'object' as const, properties: {} };
for (const name of ['add', 'wait', 'hang', 'big', 'picture', 'boom', 'count']) {
  index.registerTool(
    {
      namespace: 't',
      name,
      inputSchema:
        name === 'add'
          ? {
              type: 'object',
              properties: {
                a: { type: 'number' },
                b: { type: 'number' },
                note: { type: 'string' },
              },
              required: ['a', 'b'],
            }
          : object,
    },
    { kind: 'local', local: { name } },
  );
}
const source = { index, runner: createRunner({ index, local }) };
const exposed = exposeTools(source, 'openai-strict');
const call = (name: string, args: unknown, callId = name): ToolCallRequest => ({
  callId,
  name: `t__${name}`,
  arguments: args,
});

describe('runCalls', () => {
  it('answers each call in order, restoring strict nulls before the runner validates', async () => {
    const outcomes = await runCalls(
      source,
      [call('add', '{"a":2,"b":3,"note":null}', 'c1'), call('picture', '{}', 'c2')],
      exposed.resolve,
    );
    expect(outcomes.map((o) => [o.callId, o.toolId, o.isError])).toEqual([
      ['c1', 't:add', false],
      ['c2', 't:picture', false],
    ]);
    expect(outcomes[0]?.parts).toEqual([{ type: 'text', text: '{"sum":5}' }]);
    expect(outcomes[0]?.structured).toEqual({ sum: 5 });
    expect(outcomes[1]?.parts).toEqual([
      { type: 'text', text: 'a picture' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
  });

  it('answers malformed arguments, unknown names and failures as errors instead of throwing', async () => {
    const outcomes = await runCalls(
      source,
      [
        call('add', '{"a":2,'),
        call('add', '[1,2]', 'array'),
        call('add', '{"a":"two","b":3}', 'invalid'),
        { callId: 'ghost', name: 'nope', arguments: '{}' },
        call('boom', '{}'),
      ],
      exposed.resolve,
    );
    expect(outcomes.map((o) => [o.callId, o.isError, o.code])).toEqual([
      ['add', true, 'invalid_argument'],
      ['array', true, 'invalid_argument'],
      ['invalid', true, 'validation'],
      ['ghost', true, 'not_found'],
      ['boom', true, 'execution'],
    ]);
    expect(outcomeText(outcomes[0]!)).toMatch(
      /^invalid_argument: the arguments are not valid JSON/,
    );
    expect(outcomeText(outcomes[4]!)).toContain('it broke');
  });

  it('runs a call sent twice in one turn once and answers both; calls that only share an ID run', async () => {
    for (const concurrency of [1, 8]) {
      counted = 0;
      const outcomes = await runCalls(
        source,
        [
          call('count', '{}', 'c1'),
          call('count', '{}', 'c1'),
          call('count', '{"again":true}', 'c1'),
          call('count', '{}', ''),
          call('count', '{}', ''),
        ],
        exposed.resolve,
        { concurrency },
      );
      expect(counted).toBe(4);
      expect(outcomes.map((o) => o.callId)).toEqual(['c1', 'c1', 'c1', '', '']);
      expect(outcomes[1]).toEqual(outcomes[0]);
      expect(new Set(outcomes.map((o) => JSON.stringify(o.structured))).size).toBe(4);
    }
  });

  it('answers a call the reply cut off as invalid_argument, never running it', async () => {
    const [cut] = await runCalls(
      source,
      [{ ...call('add', { a: 1, b: 2 }), cutOff: 'max_tokens' }],
      exposed.resolve,
    );
    expect(cut).toMatchObject({ isError: true, code: 'invalid_argument', toolId: 't:add' });
    expect(outcomeText(cut as CallOutcome)).toMatch(/cut off \(max_tokens\)/);
  });

  it('refuses a concurrency, timeout or output bound that makes no sense', async () => {
    for (const options of [
      { concurrency: 0 },
      { concurrency: 1.5 },
      { concurrency: Number.NaN },
      { timeoutMs: -1 },
      { maxOutputChars: Number.NaN },
      { maxOutputChars: 0 },
    ]) {
      await expect(
        runCalls(source, [call('add', '{}')], exposed.resolve, options),
      ).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
  });

  it('refuses a timeout past what a timer keeps, which ended every call as it started', async () => {
    // Node fires a timer set past 2^31 - 1 ms after 1 ms: each call was answered `timeout`.
    await expect(
      runCalls(source, [call('wait', '{}')], exposed.resolve, { timeoutMs: 2 ** 31 }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    // No limit stays no limit.
    const [waited] = await runCalls(source, [call('wait', '{}')], exposed.resolve, {
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    expect(waited).toMatchObject({ isError: false });
  });

  it('runs at most `concurrency` calls at once', async () => {
    peak = 0;
    const calls = Array.from({ length: 10 }, (_, i) => call('wait', '{}', `w${i}`));
    const outcomes = await runCalls(source, calls, exposed.resolve, { concurrency: 3 });
    expect(outcomes.every((o) => !o.isError)).toBe(true);
    expect(peak).toBe(3);
  });

  it('ends a call past its timeout as a timeout error, even one that ignores its signal', async () => {
    const [outcome] = await runCalls(source, [call('hang', '{}')], exposed.resolve, {
      timeoutMs: 50,
    });
    expect(outcome).toMatchObject({ isError: true, code: 'timeout' });
  });

  it('rejects with cancelled when the caller aborts, and stops the running calls', async () => {
    const controller = new AbortController();
    const pending = runCalls(source, [call('wait', '{}'), call('hang', '{}')], exposed.resolve, {
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await expect(
      runCalls(source, [], exposed.resolve, { signal: controller.signal }),
    ).rejects.toMatchObject({
      code: 'cancelled',
    });
  });

  it('cuts a 10 MB result to maxOutputChars and says how much was left out', async () => {
    const [outcome] = await runCalls(source, [call('big', '{}')], exposed.resolve, {
      maxOutputChars: 1000,
    });
    const text = outcomeText(outcome!);
    expect(text.length).toBeLessThan(1200);
    expect(text).toContain(`${10 * 1024 * 1024 - 1000} of ${10 * 1024 * 1024} characters left out`);
  });
});

describe('parseArguments', () => {
  it('takes JSON text, parsed objects and nothing; refuses other JSON', () => {
    expect(parseArguments('{"__proto__":{"x":1}}')).toEqual(JSON.parse('{"__proto__":{"x":1}}'));
    expect(parseArguments({ a: 1 })).toEqual({ a: 1 });
    expect(parseArguments('')).toEqual({});
    expect(parseArguments(undefined)).toEqual({});
    expect(parseArguments('"x"')).toBe('the arguments must be a JSON object');
  });

  it('refuses an integer JSON.parse would read as another, and takes every one it reads exactly', () => {
    expect(parseArguments('{"id": 9007199254740993}')).toMatch(
      /^the integer 9007199254740993 in the arguments cannot be passed on exactly .* here 9007199254740992\)/,
    );
    expect(parseArguments('{"ids": [1, -12345678901234567891]}')).toMatch(/-12345678901234567891/);
    expect(parseArguments('{"id": 9007199254740991, "big": 100000000000000000000}')).toEqual({
      id: 9007199254740991,
      big: 1e20,
    });
    expect(parseArguments('{"id": "9007199254740993", "x": 0.12345678901234567891}')).toEqual({
      id: '9007199254740993',
      x: Number('0.12345678901234567891'),
    });
  });
});

describe('runCalls through a real MCP server over stdio', () => {
  const toolkit = useFixtureToolkit();

  it("passes an upstream's error result through as the model's error, and mixed content as parts", async () => {
    const { resolve } = exposeTools(toolkit, 'anthropic', { include: { namespaces: ['fx'] } });
    const outcomes = await runCalls(
      toolkit,
      [
        { callId: 'e', name: 'fx__report-error', arguments: { message: 'no such city' } },
        { callId: 'm', name: 'fx__mixed', arguments: {} },
      ],
      resolve,
    );
    expect(outcomes[0]).toMatchObject({
      isError: true,
      parts: [{ type: 'text', text: 'no such city' }],
    });
    expect(outcomes[1]?.isError).toBe(false);
    expect(outcomes[1]?.parts.map((part) => part.type)).toEqual(['text', 'image', 'text']);
  });

  it('runs no call whose JSON text holds an integer past 2^53 - 1, nor one through call_tool', async () => {
    const { resolve } = exposeTools(toolkit, 'openai-strict', { include: { namespaces: ['fx'] } });
    const search = exposeTools(toolkit, 'openai-strict', {
      include: { namespaces: ['fx'] },
      mode: 'search',
    });
    const [direct] = await runCalls(
      toolkit,
      [{ callId: 'd', name: 'fx__add', arguments: '{"a": 9007199254740993, "b": 0}' }],
      resolve,
    );
    const [searched] = await runCalls(
      toolkit,
      [
        {
          callId: 's',
          name: 'call_tool',
          arguments: JSON.stringify({ id: 'fx:add', arguments: '{"a": 9007199254740993, "b": 0}' }),
        },
      ],
      search.resolve,
    );
    for (const outcome of [direct, searched]) {
      expect(outcome).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(outcomeText(outcome as CallOutcome)).toContain('9007199254740993');
    }
  });

  it("tells onProgress each of the server's progress reports, tagged with its call", async () => {
    const { resolve } = exposeTools(toolkit, 'anthropic', { include: { namespaces: ['fx'] } });
    const heard: CallProgress[] = [];
    const outcomes = await runCalls(
      toolkit,
      [
        { callId: 'p3', name: 'fx__progress', arguments: { steps: 3, delayMs: 5 } },
        { callId: 'p2', name: 'fx__progress', arguments: { steps: 2 } },
        { callId: 'sum', name: 'fx__add', arguments: { a: 1, b: 2 } },
      ],
      resolve,
      {
        onProgress: (event) => {
          heard.push(event);
        },
      },
    );
    expect(outcomes.map((outcome) => outcome.isError)).toEqual([false, false, false]);
    const of = (callId: string) => heard.filter((event) => event.callId === callId);
    expect(of('p3')).toEqual(
      [1, 2, 3].map((step) => ({
        callId: 'p3',
        name: 'fx__progress',
        toolId: 'fx:progress',
        progress: step,
        total: 3,
        message: `step ${String(step)}`,
      })),
    );
    expect(of('p2').map((event) => event.progress)).toEqual([1, 2]);
    expect(of('sum')).toEqual([]);
  });

  it('reports progress on the timed path too, and a listener that throws leaves the calls alone', async () => {
    const { resolve } = exposeTools(toolkit, 'anthropic', { include: { namespaces: ['fx'] } });
    let calls = 0;
    const outcomes = await runCalls(
      toolkit,
      [{ callId: 'p', name: 'fx__progress', arguments: { steps: 4 } }],
      resolve,
      {
        signal: new AbortController().signal,
        timeoutMs: 20_000,
        onProgress: () => {
          calls++;
          throw new Error('a broken listener');
        },
      },
    );
    expect(calls).toBe(4);
    expect(outcomes[0]).toMatchObject({ isError: false, structured: { steps: 4 } });
  });

  it('answers a call whose server dies mid-call as an error, without waiting for a timeout', async () => {
    const { resolve } = exposeTools(toolkit, 'anthropic', { include: { namespaces: ['fx'] } });
    const pending = runCalls(
      toolkit,
      [{ callId: 'slow', name: 'fx__slow', arguments: { ms: 60_000 } }],
      resolve,
      { timeoutMs: 30_000 },
    );
    const pids = childPids('serve-fixture');
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    const [outcome] = await pending;
    expect(outcome?.isError).toBe(true);
    expect(outcome?.code).not.toBe('timeout');
  });
});
