import { shownValue } from '@toolplane/toolmodel/text';
import { createCodeMode } from '@toolplane/codemode';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { runToolUses } from './run.js';
import { toAnthropicTools } from './tools.js';

// The fixture server over stdio as `fx`: the options are checked against a real catalogue.
const toolkit = useFixtureToolkit();

const refused = (message: string): unknown =>
  expect.objectContaining({ code: 'invalid_argument', message });

describe('the Anthropic adapter options', () => {
  it('refuses a misspelled option of toAnthropicTools, naming the one it meant', async () => {
    // `exlude` was ignored: the tools it named went out with the rest.
    await expect(
      toAnthropicTools(toolkit, { exlude: { namespaces: ['fx'] } } as never),
    ).rejects.toEqual(
      refused('toAnthropicTools: unknown option "exlude"; did you mean "exclude"?'),
    );
  });

  it('refuses a misspelled selector or naming key rather than ignoring it', async () => {
    await expect(
      toAnthropicTools(toolkit, { exclude: { tag: ['admin'] } } as never),
    ).rejects.toEqual(
      refused('toAnthropicTools: exclude: unknown option "tag"; did you mean "tags"?'),
    );
    await expect(
      toAnthropicTools(toolkit, { naming: { seperator: '_' } } as never),
    ).rejects.toEqual(
      refused('toAnthropicTools: naming: unknown option "seperator"; did you mean "separator"?'),
    );
  });

  it('refuses a filter in code mode, and a code mode without mode: code, which were ignored', async () => {
    const code = createCodeMode(toolkit, { filter: { namespaces: ['fx'] } });
    try {
      // The include was ignored: a program could call every tool of the toolkit.
      await expect(
        toAnthropicTools(toolkit, {
          mode: 'code',
          codeMode: code,
          include: { namespaces: ['fx'] },
        }),
      ).rejects.toMatchObject({ code: 'invalid_argument' });
      // Without mode: 'code' the code mode was ignored: every tool went out on its own.
      await expect(toAnthropicTools(toolkit, { codeMode: code })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      const tools = await toAnthropicTools(toolkit, { mode: 'code', codeMode: code });
      expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'describe_tool', 'run_code']);
    } finally {
      await code.close();
    }
  });

  it('refuses a misspelled option of runToolUses, and takes every one of its own', async () => {
    const tools = await toAnthropicTools(toolkit, { include: { namespaces: ['fx'] } });
    await expect(runToolUses(toolkit, [], { tools, timeout: 1_000 } as never)).rejects.toEqual(
      refused('runToolUses: unknown option "timeout"; did you mean "timeoutMs"?'),
    );
    await expect(
      runToolUses(toolkit, [], { tools, concurrency: 2, timeoutMs: 1_000, mode: 'tools' }),
    ).resolves.toEqual([]);
  });
});

describe('runToolUses with something that is no turn', () => {
  it('refuses it with invalid_argument, not a TypeError from inside', async () => {
    for (const turn of [null, undefined, {}, { content: 'text' }, 42]) {
      await expect(runToolUses(toolkit, turn as never), shownValue(turn)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
  });
});

describe('the Anthropic adapter given no source', () => {
  it('refuses it with invalid_argument, not a TypeError from inside', async () => {
    for (const source of [null, undefined, {}]) {
      await expect(toAnthropicTools(source as never)).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(runToolUses(source as never, [])).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
  });
});
