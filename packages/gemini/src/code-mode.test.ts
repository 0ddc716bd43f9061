import { GoogleGenAI, type Content } from '@google/genai';
import { createCodeMode, type CodeMode } from '@toolplane/codemode';
import type { Step } from '@toolplane/test-support/mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFunctionCalls } from './run.js';
import { call, reply, useGeminiHarness } from './testing/scripted-model.js';
import { toGeminiTools } from './tools.js';

// Code mode with the real `@google/genai` client and a scripted model on 127.0.0.1: the model
// gets search_tools, describe_tool and run_code, and the program's calls reach the stdio fixture.

const harness = useGeminiHarness();
const { toolkit } = harness;
const client = (script: Step[]): Promise<GoogleGenAI> => harness.client(script);

let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(toolkit, { timeoutMs: 20_000, filter: { namespaces: ['fx'] } });
});
afterAll(async () => {
  await code.close();
});

describe("toGeminiTools({ mode: 'code' }) and runFunctionCalls", () => {
  it('declares the three code-mode tools and answers each, the program running upstream', async () => {
    const tools = await toGeminiTools(toolkit, { mode: 'code', codeMode: code });
    const declarations = tools[0]?.functionDeclarations ?? [];
    expect(declarations.map((d) => d.name)).toEqual(['search_tools', 'describe_tool', 'run_code']);
    const ai = await client([
      reply([
        call('search_tools', { query: 'add numbers' }, 's'),
        call('describe_tool', { id: 'fx:add' }, 'd'),
        call('run_code', { code: 'return await tools.fx.add({ a: 2, b: 3 });' }, 'r'),
        call('run_code', { code: "console.log('hi'); return { n: 1 };" }, 'l'),
        call('run_code', { code: 'return tools.fx.nope({});' }, 'x'),
      ]),
      reply([{ text: '5' }]),
    ]);
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'add' }] }];
    const first = await ai.models.generateContent({ model: 'mock', contents, config: { tools } });
    const parts = await runFunctionCalls(toolkit, first, { tools });
    const said = first.candidates?.[0]?.content;
    if (said === undefined) throw new Error('no content');
    contents.push(said, { role: 'user', parts });
    const second = await ai.models.generateContent({ model: 'mock', contents, config: { tools } });
    expect(second.text).toBe('5');
    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[], []]);

    const responses = parts.map((part) => part.functionResponse?.response);
    expect(responses[0]?.output).toMatchObject({
      results: expect.arrayContaining([
        expect.objectContaining({ id: 'fx:add', call: 'tools.fx.add' }),
      ]) as unknown,
    });
    expect(responses[1]?.output).toContain('add(args: {');
    expect(responses[2]).toEqual({ output: { sum: 5 } });
    // With logs the model reads the value and the logs as text.
    expect(responses[3]).toEqual({ output: '{"n":1}\nlogs:\n[log] hi' });
    expect(responses[4]?.error).toMatch(/^execution: /);
  });
});
