import { shownValue } from '@toolplane/toolmodel/text';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { runFunctionCalls } from './run.js';
import { toGeminiTools } from './tools.js';

// The fixture server over stdio as `fx`: the options are checked against a real catalogue.
const toolkit = useFixtureToolkit();

const refused = (message: string): unknown =>
  expect.objectContaining({ code: 'invalid_argument', message });

describe('the Gemini adapter options', () => {
  it('refuses a misspelled option of toGeminiTools, naming the one it meant', async () => {
    // `mdoe: 'search'` was ignored: every tool went out, one declaration each.
    await expect(toGeminiTools(toolkit, { mdoe: 'search' } as never)).rejects.toEqual(
      refused('toGeminiTools: unknown option "mdoe"; did you mean "mode"?'),
    );
    await expect(toGeminiTools(toolkit, { include: { id: ['fx:add'] } } as never)).rejects.toEqual(
      refused('toGeminiTools: include: unknown option "id"; did you mean "ids"?'),
    );
  });

  it('refuses a misspelled option of runFunctionCalls, even for a turn without calls', async () => {
    const tools = await toGeminiTools(toolkit, { include: { namespaces: ['fx'] } });
    await expect(
      runFunctionCalls(toolkit, [], { tools, maxOutputChar: 100 } as never),
    ).rejects.toEqual(
      refused('runFunctionCalls: unknown option "maxOutputChar"; did you mean "maxOutputChars"?'),
    );
    // Gemini reads structured content whatever it is told: the option is not its to take.
    await expect(
      runFunctionCalls(toolkit, [], { tools, readsStructured: false } as never),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      runFunctionCalls(toolkit, [], { tools, concurrency: 2, maxTurnOutputChars: 1_000 }),
    ).resolves.toEqual([]);
  });
});

describe('runFunctionCalls with something that is no turn', () => {
  it('refuses it with invalid_argument, not a TypeError from inside', async () => {
    for (const turn of [null, undefined, 'text', { functionCalls: 'x' }, 42]) {
      await expect(
        runFunctionCalls(toolkit, turn as never),
        shownValue(turn),
      ).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
  });
});

describe('the Gemini adapter given no source', () => {
  it('refuses it with invalid_argument, not a TypeError from inside', async () => {
    for (const source of [null, undefined, {}]) {
      await expect(toGeminiTools(source as never)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(runFunctionCalls(source as never, [])).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
  });
});
