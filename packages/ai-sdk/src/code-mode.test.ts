import { createCodeMode, type CodeMode } from '@toolplane/codemode';
import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultOutput } from './results.js';
import { textStep, toolCallStep } from './testing/model-steps.js';
import { toAiSdkTools } from './tools.js';

// A scripted model in code mode over the stdio fixture server: it searches, reads a
// declaration, and runs one program whose calls reach the real upstream.

const toolkit = useFixtureToolkit();
let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(toolkit, { timeoutMs: 20_000, filter: { tools: ['fx:add', 'fx:echo'] } });
});
afterAll(async () => {
  await code.close();
});

const program = [
  "console.log('adding');",
  'const { sum } = await tools.fx.add({ a: 20, b: 22 });',
  "const echoed = await tools.fx.echo({ text: 'hi' });",
  'return { sum, echoed, fail: typeof tools.fx.fail };',
].join('\n');

describe("toAiSdkTools({ mode: 'code' })", () => {
  it('exposes only search_tools, describe_tool and run_code, and runs a program upstream', async () => {
    const tools = await toAiSdkTools(toolkit, { mode: 'code', codeMode: code });
    expect(Object.keys(tools).sort()).toEqual(['describe_tool', 'run_code', 'search_tools']);
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 's', toolName: 'search_tools', input: { query: 'add two numbers' } },
        ]),
        toolCallStep([
          { toolCallId: 'd', toolName: 'describe_tool', input: { id: 'fx:add' } },
          { toolCallId: 'hidden', toolName: 'describe_tool', input: { id: 'fx:fail' } },
        ]),
        toolCallStep([
          { toolCallId: 'r', toolName: 'run_code', input: { code: program } },
          { toolCallId: 'bad', toolName: 'run_code', input: { code: 'return (' } },
        ]),
        textStep('42'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'add' });
    expect(result.text).toBe('42');
    const outputs = new Map(
      result.steps.flatMap((step) =>
        step.toolResults.map((r) => [r.toolCallId, r.output as ResultOutput] as const),
      ),
    );
    const found = outputs.get('s')?.structuredContent as { results: { id: string }[] };
    expect(found.results.map((r) => r.id)).toContain('fx:add');
    expect(found.results.every((r) => ['fx:add', 'fx:echo'].includes(r.id))).toBe(true);

    const declared = outputs.get('d')?.content[0];
    expect(declared?.type === 'text' ? declared.text : '').toContain('add(args: {');
    expect(outputs.get('hidden')).toMatchObject({ isError: true, code: 'not_found' });

    expect(outputs.get('r')).toEqual({
      type: 'result',
      content: [
        { type: 'text', text: '{"sum":42,"echoed":"hi","fail":"undefined"}' },
        { type: 'text', text: 'logs:\n[log] adding' },
      ],
    });
    expect(outputs.get('bad')).toMatchObject({ isError: true, code: 'invalid_argument' });

    // The model read the program's value and logs, and its failure as an error.
    const told = model.doGenerateCalls[3]?.prompt
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content);
    expect(
      JSON.stringify(told?.find((p) => p.type === 'tool-result' && p.toolCallId === 'r')),
    ).toContain('[log] adding');
    expect(told?.find((p) => p.type === 'tool-result' && p.toolCallId === 'bad')).toMatchObject({
      output: { type: 'error-text' },
    });
  });

  it('has run_code ask for approval under any approval rule', async () => {
    const tools = await toAiSdkTools(toolkit, {
      mode: 'code',
      codeMode: code,
      needsApproval: (_tool, id) => id === 'fx:add',
    });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallStep([
          { toolCallId: 'risky', toolName: 'run_code', input: { code: program } },
          { toolCallId: 'safe', toolName: 'search_tools', input: { query: 'echo' } },
        ]),
        textStep('never reached'),
      ],
    });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'go' });
    const requests = (result.steps[0]?.content ?? []).filter(
      (p) => p.type === 'tool-approval-request',
    );
    expect(requests.map((r) => r.toolCall.toolCallId)).toEqual(['risky']);
    expect(result.steps[0]?.toolResults.map((r) => r.toolCallId)).toEqual(['safe']);
  });

  it('refuses code mode without a code mode to run on', async () => {
    await expect(toAiSdkTools(toolkit, { mode: 'code' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
