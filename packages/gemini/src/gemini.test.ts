import { GoogleGenAI, type Content } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { runFunctionCalls } from './run.js';
import type { CallProgress } from './index.js';
import type { Step } from '@toolplane/test-support/mock-server';
import { call, reply, useGeminiHarness } from './testing/scripted-model.js';
import { toGeminiTools } from './tools.js';

// The real `@google/genai` client, pointed at a scripted model on 127.0.0.1 that speaks the
// Gemini API's generateContent and checks every request it receives.

const harness = useGeminiHarness();
const { toolkit } = harness;
const client = (script: Step[]): Promise<GoogleGenAI> => harness.client(script);

describe('toGeminiTools and runFunctionCalls with generateContent', () => {
  it('declares valid functions and answers every call with output, image parts and errors', async () => {
    const ai = await client([
      reply([
        call('fx__add', { a: 2, b: 3 }, 'g1'),
        call('fx__mixed', {}, 'g2'),
        call('fx__report-error', { message: 'no such city' }, 'g3'),
        call('fx__add', { a: 'two' }, 'g4'),
      ]),
      reply([{ text: 'All done.' }]),
    ]);
    const tools = await toGeminiTools(toolkit, { include: { namespaces: ['fx'] } });
    const declarations = tools[0]?.functionDeclarations ?? [];
    expect(declarations.map((d) => d.name)).toContain('fx__add');
    // A function without arguments declares no parameters.
    expect(declarations.find((d) => d.name === 'fx__mixed')).not.toHaveProperty('parameters');
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'go' }] }];
    const first = await ai.models.generateContent({ model: 'mock', contents, config: { tools } });
    const parts = await runFunctionCalls(toolkit, first, { tools });
    const said = first.candidates?.[0]?.content;
    if (said === undefined) throw new Error('no content');
    contents.push(said, { role: 'user', parts });
    const second = await ai.models.generateContent({ model: 'mock', contents, config: { tools } });
    expect(second.text).toBe('All done.');

    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[], []]);
    const responses = parts.map((part) => part.functionResponse);
    expect(responses.map((r) => [r?.id, r?.name])).toEqual([
      ['g1', 'fx__add'],
      ['g2', 'fx__mixed'],
      ['g3', 'fx__report-error'],
      ['g4', 'fx__add'],
    ]);
    expect(responses[0]?.response).toEqual({ output: { sum: 5 } });
    expect(responses[1]?.parts?.[0]?.inlineData?.mimeType).toBe('image/png');
    expect(responses[2]?.response).toEqual({ error: 'execution: no such city' });
    expect(responses[3]?.response?.error).toMatch(/^validation: /);
  });

  it('answers an unknown name as an error, and calls without IDs in order', async () => {
    const parts = await runFunctionCalls(
      toolkit,
      [call('fx__nope', {}).functionCall, call('fx__echo', { text: 'hi' }).functionCall],
      {
        include: { namespaces: ['fx'] },
      },
    );
    expect(parts[0]?.functionResponse).toEqual({
      name: 'fx__nope',
      response: { error: 'not_found: no tool is named "fx__nope"' },
    });
    expect(parts[1]?.functionResponse?.response).toEqual({
      output: expect.stringContaining('hi') as unknown,
    });
    expect(await runFunctionCalls(toolkit, { functionCalls: undefined })).toEqual([]);
  });
});

describe('runFunctionCalls on a name that is nearly right', () => {
  it('says which name a call in the wrong case or with a slipped separator meant, running neither', async () => {
    const tools = await toGeminiTools(toolkit, { include: { namespaces: ['fx'] } });
    const parts = await runFunctionCalls(
      toolkit,
      [call('FX__ADD', { a: 1, b: 2 }, 'g1'), call('fx_add', { a: 1, b: 2 }, 'g2')].map(
        (part) => part.functionCall,
      ),
      { tools },
    );
    expect(parts.map((part) => part.functionResponse?.response)).toEqual([
      { error: 'not_found: no tool is named "FX__ADD"; did you mean "fx__add"?' },
      { error: 'not_found: no tool is named "fx_add"; did you mean "fx__add"?' },
    ]);
  });

  it('tells a model calling a catalogue tool by name in search mode which tools there are', async () => {
    const tools = await toGeminiTools(toolkit, { include: { namespaces: ['fx'] }, mode: 'search' });
    const [part] = await runFunctionCalls(
      toolkit,
      [call('fx__add', { a: 1, b: 2 }, 'g1').functionCall],
      {
        tools,
      },
    );
    expect(part?.functionResponse?.response).toEqual({
      error:
        'not_found: no tool is named "fx__add"; the tools here are search_tools, describe_tool, call_tool',
    });
  });
});

describe('runFunctionCalls progress', () => {
  it("tells onProgress the server's progress reports, tagged with the function call", async () => {
    const heard: CallProgress[] = [];
    const parts = await runFunctionCalls(
      toolkit,
      [call('fx__progress', { steps: 3 }, 'g1').functionCall],
      {
        include: { namespaces: ['fx'] },
        onProgress: (event) => {
          heard.push(event);
        },
      },
    );
    expect(parts[0]?.functionResponse?.response).toEqual({ output: { steps: 3 } });
    expect(heard.map((event) => [event.callId, event.name, event.toolId, event.progress])).toEqual([
      ['g1', 'fx__progress', 'fx:progress', 1],
      ['g1', 'fx__progress', 'fx:progress', 2],
      ['g1', 'fx__progress', 'fx:progress', 3],
    ]);
  });
});

describe('maxTurnOutputChars', () => {
  it("shares the bound among a turn's results on their way to the model", async () => {
    const letters = ['a', 'b', 'c'];
    const ai = await client([
      reply(letters.map((c) => call('fx__echo', { text: c.repeat(3_000) }, c))),
      reply([{ text: 'ok' }]),
    ]);
    const tools = await toGeminiTools(toolkit, { include: { namespaces: ['fx'] } });
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'go' }] }];
    const first = await ai.models.generateContent({ model: 'mock', contents, config: { tools } });
    const parts = await runFunctionCalls(toolkit, first, { tools, maxTurnOutputChars: 3_000 });
    const said = first.candidates?.[0]?.content;
    if (said === undefined) throw new Error('no content');
    contents.push(said, { role: 'user', parts });
    await ai.models.generateContent({ model: 'mock', contents, config: { tools } });
    const told = harness.server()?.requests[1]?.body.contents as { parts: unknown[] }[];
    expect(told[2]?.parts).toEqual(
      letters.map((c) => ({
        functionResponse: {
          id: c,
          name: 'fx__echo',
          response: { output: `${c.repeat(1_000)}\n[toolplane: 2000 of 3000 characters left out]` },
        },
      })),
    );
  });
});

describe('structured content, which Gemini reads in place of text', () => {
  it('is bounded by maxOutputChars and maxTurnOutputChars: an object too large goes as cut JSON text', async () => {
    const rows = 'x'.repeat(5_000);
    const json = JSON.stringify({ rows });
    const parts = await runFunctionCalls(
      toolkit,
      [
        call('fx__structured', { value: { rows } }, 'big').functionCall,
        call('fx__structured', { value: { a: 1 } }, 'small').functionCall,
      ],
      { include: { namespaces: ['fx'] }, maxOutputChars: 1_000 },
    );
    const [big, small] = parts.map((part) => part.functionResponse?.response);
    // The turn's bound defaults to maxOutputChars: the small object's 7 characters count too.
    const kept = 1_000 - JSON.stringify({ a: 1 }).length;
    expect(big).toEqual({
      output: `${json.slice(0, kept)}\n[toolplane: ${String(json.length - kept)} of ${String(json.length)} characters left out]`,
    });
    expect(small).toEqual({ output: { a: 1 } });

    const shared = await runFunctionCalls(
      toolkit,
      ['a', 'b'].map(
        (id) => call('fx__structured', { value: { rows: id.repeat(3_000) } }, id).functionCall,
      ),
      { include: { namespaces: ['fx'] }, maxTurnOutputChars: 3_000 },
    );
    for (const part of shared) {
      expect(part.functionResponse?.response?.output).toMatch(
        /^\{"rows":"(a|b)+\n\[toolplane: 1511 of 3011 characters left out\]$/,
      );
    }
  });
});
