import { describe, expect, it } from 'vitest';
import { checkChatRequest, checkOpenAIRequest, checkResponsesRequest } from './wire-check.js';

const params = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
const strictParams = { ...params, additionalProperties: false };
const tool = (name: string, parameters: unknown, strict: boolean) => ({
  type: 'function',
  function: { name, parameters, strict },
});
const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });

describe('the OpenAI wire checker', () => {
  it('passes a well-formed chat turn with its tool answers', () => {
    expect(
      checkChatRequest({
        tools: [tool('f', strictParams, true), tool('g', params, false)],
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [call('1'), call('2')] },
          { role: 'tool', tool_call_id: '2', content: 'b' },
          { role: 'tool', tool_call_id: '1', content: [{ type: 'text', text: 'a' }] },
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
          },
        ],
      }),
    ).toEqual([]);
  });

  it('catches bad names, strict schemas that are not closed, and unanswered or unknown calls', () => {
    expect(
      checkChatRequest({
        tools: [tool('a.b', params, false), tool('f', params, true)],
        messages: [
          { role: 'assistant', tool_calls: [call('1'), call('2')] },
          { role: 'tool', tool_call_id: '9', content: 'x' },
          { role: 'tool', tool_call_id: '1', content: [{ type: 'image_url' }] },
          { role: 'user', content: 'next' },
        ],
      }),
    ).toEqual([
      'tools/0: name "a.b" is not ^[a-zA-Z0-9_-]{1,64}$',
      'tools/1 parameters/: strict objects need additionalProperties: false',
      'messages/1: tool_call_id "9" answers no open call',
      'messages/2: tool content must be text',
      'messages/3: calls 2 were not answered',
    ]);
  });

  it('checks Responses function_call_output items against their calls', () => {
    const fc = { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' };
    expect(
      checkResponsesRequest({
        tools: [{ type: 'function', name: 'f', parameters: strictParams, strict: true }],
        input: [
          fc,
          {
            type: 'function_call_output',
            call_id: 'c1',
            output: [
              { type: 'input_text', text: 'x' },
              { type: 'input_image', image_url: 'data:image/png;base64,AA' },
            ],
          },
        ],
      }),
    ).toEqual([]);
    expect(
      checkResponsesRequest({
        input: [
          fc,
          { type: 'function_call', call_id: 'c2' },
          { type: 'function_call_output', call_id: 'c3', output: 'x' },
          {
            type: 'function_call_output',
            call_id: 'c1',
            output: [{ type: 'input_image', image_url: 'file:x' }],
          },
        ],
      }),
    ).toEqual([
      'input/2: call_id c3 answers no open function_call',
      'input/3/output/0: image URL is neither a data URL nor http(s)',
      'function_call c2 was not answered',
    ]);
    expect(checkOpenAIRequest('/v1/embeddings', {})).toEqual(['unexpected path /v1/embeddings']);
  });
});
