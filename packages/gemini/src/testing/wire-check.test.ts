import { describe, expect, it } from 'vitest';
import { checkGeminiRequest, checkGenerateContentRequest } from './wire-check.js';

const parameters = { type: 'OBJECT', properties: { a: { type: 'STRING' } } };
const call = (name: string, id?: string) => ({
  functionCall: { name, args: {}, ...(id === undefined ? {} : { id }) },
});
const answer = (name: string, id?: string, extra: Record<string, unknown> = {}) => ({
  functionResponse: {
    name,
    response: { output: 'x' },
    ...(id === undefined ? {} : { id }),
    ...extra,
  },
});

describe('the Gemini wire checker', () => {
  it('passes declarations and a user turn answering every call in order', () => {
    expect(
      checkGenerateContentRequest({
        tools: [{ functionDeclarations: [{ name: 'f', description: 'F.', parameters }] }],
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          { role: 'model', parts: [call('f', '1'), call('g')] },
          {
            role: 'user',
            parts: [
              answer('f', '1', { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] }),
              answer('g'),
            ],
          },
        ],
      }),
    ).toEqual([]);
  });

  it('catches bad names and schemas, unanswered calls, wrong names or ids, and bad parts', () => {
    expect(
      checkGenerateContentRequest({
        tools: [
          {
            functionDeclarations: [
              { name: '3d', parameters: { type: 'object' } },
              { name: 'f', parameters, parametersJsonSchema: {} },
            ],
          },
        ],
        contents: [
          { role: 'model', parts: [call('f', '1'), call('g')] },
          {
            role: 'user',
            parts: [
              answer('f', '2'),
              { functionResponse: { name: 'h', response: 'x', parts: [{}] } },
            ],
          },
          { role: 'model', parts: [call('f')] },
          { role: 'user', parts: [{ text: 'never mind' }] },
        ],
      }),
    ).toEqual([
      'tools/0/functionDeclarations/0: name "3d" is not a Gemini function name',
      'tools/0/functionDeclarations/0 parameters/: the root is not an object schema',
      'tools/0/functionDeclarations/0 parameters/: type "object" is not one of Gemini\'s types',
      'tools/0/functionDeclarations/1: both parameters and parametersJsonSchema',
      "contents/1/parts/0: id 2 is not the call's 1",
      'contents/1/parts/1: answers h, the call was g',
      'contents/1/parts/1: response is not an object',
      'contents/1/parts/1: a response part without inline data',
      'contents/3: 1 function calls need as many functionResponses',
    ]);
    expect(checkGeminiRequest('/v1beta/models/m:countTokens', {})).toEqual([
      'unexpected path /v1beta/models/m:countTokens',
    ]);
  });
});
