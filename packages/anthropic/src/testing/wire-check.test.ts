import { describe, expect, it } from 'vitest';
import { checkAnthropicRequest, checkMessagesRequest } from './wire-check.js';

const schema = { type: 'object', properties: { a: { type: 'string' } } };
const use = (id: string) => ({ type: 'tool_use', id, name: 'f', input: {} });

describe('the Anthropic wire checker', () => {
  it('passes tools and a user message answering every tool_use first', () => {
    expect(
      checkMessagesRequest({
        tools: [{ name: 'f', description: 'F.', input_schema: schema }],
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }, use('1'), use('2')] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: '1', content: [{ type: 'text', text: 'a' }] },
              {
                type: 'tool_result',
                tool_use_id: '2',
                is_error: true,
                content: [
                  {
                    type: 'image',
                    source: { type: 'base64', media_type: 'image/png', data: 'AA' },
                  },
                ],
              },
              { type: 'text', text: 'and then?' },
            ],
          },
        ],
      }),
    ).toEqual([]);
  });

  it('catches bad tools, unanswered and unknown tool uses, misplaced results and bad blocks', () => {
    expect(
      checkMessagesRequest({
        tools: [{ name: 'a b', input_schema: { type: 'string' } }],
        messages: [
          { role: 'assistant', content: [use('1'), use('2')] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'first' },
              { type: 'tool_result', tool_use_id: '1', content: [{ type: 'text', text: '' }] },
              {
                type: 'tool_result',
                tool_use_id: '9',
                is_error: 'yes',
                content: [
                  {
                    type: 'image',
                    source: { type: 'base64', media_type: 'image/bmp', data: 'AA' },
                  },
                ],
              },
            ],
          },
        ],
      }),
    ).toEqual([
      'tools/0: name "a b" is not ^[a-zA-Z0-9_-]{1,64}$',
      'tools/0 input_schema/: the root is not an object schema',
      'messages/1: tool_result blocks must come first',
      'messages/1/tool_result/0/content/0: empty text block',
      'messages/1: tool_result 9 answers no open tool_use',
      'messages/1: is_error is not a boolean',
      'messages/1/tool_result/1/content/0: media_type image/bmp is not supported',
      'messages/1: tool_use 2 was not answered',
    ]);
    expect(checkAnthropicRequest('/v1/complete', {})).toEqual(['unexpected path /v1/complete']);
  });
});
