import { shownValue } from '@toolplane/toolmodel/text';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { runToolCalls } from './run.js';
import { toOpenAIResponsesTools, toOpenAITools } from './tools.js';

// The fixture server over stdio as `fx`: the options are checked against a real catalogue.
const toolkit = useFixtureToolkit();

const refused = (message: string): unknown =>
  expect.objectContaining({ code: 'invalid_argument', message });

describe('the OpenAI adapter options', () => {
  it('refuses a misspelled option of toOpenAITools, naming the one it meant', async () => {
    // `strct: false` was ignored: every tool still went out strict.
    await expect(toOpenAITools(toolkit, { strct: false } as never)).rejects.toEqual(
      refused('toOpenAITools: unknown option "strct"; did you mean "strict"?'),
    );
    await expect(toOpenAIResponsesTools(toolkit, { inclde: {} } as never)).rejects.toEqual(
      refused('toOpenAIResponsesTools: unknown option "inclde"; did you mean "include"?'),
    );
  });

  it('refuses a misspelled selector rather than exposing every tool', async () => {
    // `namespace` selected nothing, so `include` let every tool through.
    await expect(
      toOpenAITools(toolkit, { include: { namespace: ['fx'] } } as never),
    ).rejects.toEqual(
      refused('toOpenAITools: include: unknown option "namespace"; did you mean "namespaces"?'),
    );
  });

  it('refuses a mode it does not have and a strict that is not a boolean', async () => {
    await expect(toOpenAITools(toolkit, { mode: 'serach' } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(toOpenAITools(toolkit, { strict: 'false' } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('refuses a naming separator no provider name can hold, which hashed every name', async () => {
    // `fx:add` is no OpenAI function name: every tool went out as `fx_add_efd51e28` and the like.
    await expect(toOpenAITools(toolkit, { naming: { separator: ':' } })).rejects.toEqual(
      refused(
        'toOpenAITools: naming.separator must be 1 to 64 of A-Z a-z 0-9 _ - (the characters of an exposed tool name), got the string ":"',
      ),
    );
    const tools = await toOpenAITools(toolkit, {
      naming: { separator: '-' },
      include: { namespaces: ['fx'] },
    });
    expect(tools.map((tool) => tool.function.name)).toContain('fx-add');
  });

  it('refuses a misspelled option of runToolCalls, and takes every one of its own', async () => {
    const tools = await toOpenAITools(toolkit, { include: { namespaces: ['fx'] } });
    const turn = { tool_calls: [] };
    await expect(runToolCalls(toolkit, turn, { tools, concurrncy: 2 } as never)).rejects.toEqual(
      refused('runToolCalls: unknown option "concurrncy"; did you mean "concurrency"?'),
    );
    await expect(
      runToolCalls(toolkit, turn, {
        tools,
        concurrency: 2,
        timeoutMs: 1_000,
        maxOutputChars: 100,
        maxTurnOutputChars: 200,
        strict: true,
        include: { namespaces: ['fx'] },
        meta: {},
      }),
    ).resolves.toEqual([]);
  });
});

describe('runToolCalls with a tool list the caller built', () => {
  it('maps names back through the tools of a spread list, beside the caller’s own tool', async () => {
    const made = await toOpenAITools(toolkit, { mode: 'search' });
    const mine = {
      type: 'function' as const,
      function: { name: 'my_own', parameters: { type: 'object', properties: {} } },
    };
    // A new array: the search-mode list was not found, the source was listed again as one tool
    // per tool, and search_tools was answered "no tool is named".
    const tools = [...made, mine];
    const [answer] = await runToolCalls(
      toolkit,
      {
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'search_tools', arguments: '{"query":"add two numbers"}' },
          },
        ],
      },
      { tools },
    );
    expect(answer).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(answer?.content).toContain('fx:add');
  });
});

describe('runToolCalls with something that is no turn', () => {
  it('refuses it with invalid_argument, not a TypeError from inside', async () => {
    for (const turn of [null, undefined, 'text', 42]) {
      await expect(runToolCalls(toolkit, turn as never), shownValue(turn)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
  });
});

describe('the OpenAI adapter given no source', () => {
  it('refuses it with invalid_argument, not a TypeError from inside', async () => {
    for (const source of [null, undefined, {}]) {
      await expect(toOpenAITools(source as never)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(toOpenAIResponsesTools(source as never)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(
        runToolCalls(source as never, { tool_calls: [] }, { tools: [] }),
      ).rejects.toMatchObject({ code: 'invalid_argument' });
    }
  });
});
