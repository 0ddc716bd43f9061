import { ToolError } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { fromError, toModelOutput, type ResultOutput } from './results.js';

const result = (fields: Omit<ResultOutput, 'type'>): ResultOutput => ({
  type: 'result',
  ...fields,
});

describe('toModelOutput', () => {
  it('joins text blocks into one text output', () => {
    const output = result({
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
    expect(toModelOutput(output)).toEqual({ type: 'text', value: 'one\ntwo' });
  });

  it('gives structured content as JSON, and as cut text when it is over the limit', () => {
    const structuredContent = { rows: ['a', 'b'] };
    const output = result({ content: [{ type: 'text', text: '…' }], structuredContent });
    expect(toModelOutput(output)).toEqual({ type: 'json', value: structuredContent });
    const cut = toModelOutput(output, { maxOutputChars: 5 });
    expect(cut).toEqual({
      type: 'text',
      value: '{"row\n[toolplane: 13 of 18 characters left out]',
    });
  });

  it('turns audio into media, resource links into text and embedded resources into text or media', () => {
    const output = result({
      content: [
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a', description: 'the a file' },
        { type: 'resource', resource: { uri: 'mem://note', text: 'a note' } },
        { type: 'resource', resource: { uri: 'mem://blob', blob: 'AAEC', mimeType: 'x/y' } },
      ],
    });
    expect(toModelOutput(output)).toEqual({
      type: 'content',
      value: [
        { type: 'media', data: 'UklGRg==', mediaType: 'audio/wav' },
        { type: 'text', text: 'resource file:///a.txt (a): the a file' },
        { type: 'text', text: 'resource mem://note:\na note' },
        { type: 'media', data: 'AAEC', mediaType: 'x/y' },
      ],
    });
  });

  it('tells a failure as error text: its text, else its structured content', () => {
    expect(
      toModelOutput(result({ content: [{ type: 'text', text: 'no such file' }], isError: true })),
    ).toEqual({ type: 'error-text', value: 'no such file' });
    expect(
      toModelOutput(result({ content: [], structuredContent: { reason: 'quota' }, isError: true })),
    ).toEqual({ type: 'error-text', value: '{"reason":"quota"}' });
  });

  it('keeps an upstream error result a failure carries, with the failure code', () => {
    const upstream = { isError: true, content: [{ type: 'text', text: 'rate limited upstream' }] };
    const error = new ToolError('execution', 'the tool failed', { cause: upstream });
    expect(fromError(error)).toEqual({
      type: 'result',
      content: upstream.content,
      isError: true,
      code: 'execution',
    });
    expect(fromError(new ToolError('timeout', 'took too long'))).toMatchObject({
      content: [{ type: 'text', text: 'timeout: took too long' }],
      code: 'timeout',
    });
  });
});
