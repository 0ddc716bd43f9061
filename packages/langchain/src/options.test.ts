import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { describe, expect, it } from 'vitest';
import { toMessageContent, type ToolplaneArtifact } from './results.js';
import { ToolplaneTool, type ToolplaneToolFields } from './tool.js';
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

  it('refuses a misspelled option of toMessageContent, and a media or maxOutputChars it cannot use', () => {
    const artifact: ToolplaneArtifact = {
      toolId: 'fx:add',
      content: [{ type: 'text', text: 'x'.repeat(50) }],
    };
    // `medias: 'content'` was ignored: the images stayed in the artifact alone.
    expect(() => toMessageContent(artifact, { medias: 'content' } as never)).toThrow(
      refused('toMessageContent: unknown option "medias"; did you mean "media"?'),
    );
    expect(() => toMessageContent(artifact, { media: 'contents' } as never)).toThrow(
      refused(
        "toMessageContent: media must be 'artifact' or 'content', got the string \"contents\"",
      ),
    );
    expect(() => toMessageContent(artifact, { maxOutputChars: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(toMessageContent(artifact, { maxOutputChars: 60, media: 'content' })).toBe(
      'x'.repeat(50),
    );
  });

  it('refuses a misspelled field of a ToolplaneTool, and a run that is not a function', async () => {
    const [add] = await toLangChainTools(toolkit, { include: { ids: ['fx:add'] } });
    const fields: ToolplaneToolFields = {
      name: 'add',
      description: 'Adds two numbers.',
      schema: { type: 'object' },
      toolId: 'fx:add',
      run: () => Promise.reject(new Error('not called')),
    };
    // `throwOnErrors: true` was ignored: a failed call came back as a message, not thrown.
    expect(() => new ToolplaneTool({ ...fields, throwOnErrors: true } as never)).toThrow(
      refused('ToolplaneTool: unknown option "throwOnErrors"; did you mean "throwOnError"?'),
    );
    expect(() => new ToolplaneTool({ ...fields, media: 'contents' } as never)).toThrow(
      refused("ToolplaneTool: media must be 'artifact' or 'content', got the string \"contents\""),
    );
    expect(() => new ToolplaneTool({ ...fields, maxOutputChars: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => new ToolplaneTool({ ...fields, run: undefined } as never)).toThrow(
      refused('ToolplaneTool: run must be a function'),
    );
    // The tools the adapter makes pass their own check.
    expect(add?.toolId).toBe('fx:add');
  });
});
