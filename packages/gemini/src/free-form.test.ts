import { createToolkit, defineTool } from '@toolplane/toolkit';
import { checkSchema } from '@toolplane/adapter-kit';
import { describe, expect, it } from 'vitest';
import { runFunctionCalls } from './run.js';
import { toGeminiTools } from './tools.js';

// Free-form objects, which Gemini's schema cannot declare, asked for as JSON text and parsed back
// before the tool runs: the round trip from declaration to the tool's input.

const echo = (name: string, input: Record<string, unknown>) =>
  defineTool({ name, description: `Echoes ${name}.`, input, run: (got) => ({ got }) });

const put = echo('put', {
  type: 'object',
  properties: { data: { type: ['object', 'array'], items: { type: 'string' } } },
  required: ['data'],
});
const setEnv = echo('set_env', {
  type: 'object',
  additionalProperties: { type: 'string' },
  minProperties: 1,
});
const ping = echo('ping', { type: 'object' });
const toolkit = createToolkit({ tools: [put, setEnv, ping] });

async function declared(name: string) {
  const tools = await toGeminiTools(toolkit);
  const declaration = tools[0]?.functionDeclarations?.find((d) => d.name === `builtin__${name}`);
  return { tools, declaration };
}

async function answer(tools: object[], name: string, args: Record<string, unknown>) {
  const parts = await runFunctionCalls(toolkit, [{ id: 'g1', name: `builtin__${name}`, args }], {
    tools,
  });
  return parts[0]?.functionResponse?.response;
}

describe('toGeminiTools and runFunctionCalls with free-form objects', () => {
  it('runs a tool with either branch of a property that takes an object or an array', async () => {
    const { tools, declaration } = await declared('put');
    expect(checkSchema(declaration?.parameters, 'gemini')).toEqual([]);
    expect(await answer(tools, 'put', { data: '{"k":1}' })).toEqual({
      output: { got: { data: { k: 1 } } },
    });
    expect(await answer(tools, 'put', { data: ['a'] })).toEqual({
      output: { got: { data: ['a'] } },
    });
  });

  it('declares the arguments of a tool whose root is a map, and runs it with them', async () => {
    const { tools, declaration } = await declared('set_env');
    const parameters = declaration?.parameters as Record<string, unknown> | undefined;
    expect(checkSchema(parameters, 'gemini')).toEqual([]);
    const [key] = (parameters?.required ?? []) as string[];
    expect(Object.keys(parameters?.properties ?? {})).toEqual([key]);
    expect(await answer(tools, 'set_env', { [key ?? '']: '{"HOME":"/h"}' })).toEqual({
      output: { got: { HOME: '/h' } },
    });
    // Text that is no object reaches the runner, whose validation refuses it.
    expect(await answer(tools, 'set_env', { [key ?? '']: '[1]' })).toEqual({
      error: expect.stringMatching(/^validation: /) as unknown,
    });
  });

  it('still declares no parameters for a tool without arguments', async () => {
    const { tools, declaration } = await declared('ping');
    expect(declaration).not.toHaveProperty('parameters');
    expect(await answer(tools, 'ping', {})).toEqual({ output: { got: {} } });
  });
});
