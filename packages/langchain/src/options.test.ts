import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { toLangChainTools } from './tools.js';

// The fixture server over stdio as `fx`: the options are checked against a real catalogue.
const toolkit = useFixtureToolkit();

const refused = (message: string): unknown =>
  expect.objectContaining({ code: 'invalid_argument', message });

describe('the LangChain adapter options', () => {
  it('refuses a misspelled option of toLangChainTools, naming the one it meant', async () => {
    // `throwOnErrors: true` was ignored: a failed call came back as a message, not thrown.
    await expect(toLangChainTools(toolkit, { throwOnErrors: true } as never)).rejects.toEqual(
      refused('toLangChainTools: unknown option "throwOnErrors"; did you mean "throwOnError"?'),
    );
    await expect(
      toLangChainTools(toolkit, { exclude: { ids: 'fx:add' } } as never),
    ).rejects.toEqual(refused('toLangChainTools: exclude.ids must be a list of strings'));
    await expect(toLangChainTools(toolkit, { media: 'contents' } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('takes every option of its own', async () => {
    const tools = await toLangChainTools(toolkit, {
      include: { namespaces: ['fx'] },
      naming: { separator: '__' },
      maxOutputChars: 1_000,
      media: 'content',
      throwOnError: false,
      meta: {},
      mode: 'tools',
    });
    expect(tools.map((tool) => tool.name)).toContain('fx__add');
  });
});
