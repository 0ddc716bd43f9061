import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { createCodeMode, type CodeMode } from '@toolplane/codemode';
import type { Step } from '@toolplane/test-support/mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolUses } from './run.js';
import { message, use, useAnthropicHarness } from './testing/scripted-model.js';
import { toAnthropicTools } from './tools.js';

// Code mode with the real `@anthropic-ai/sdk` client and a scripted model on 127.0.0.1: the
// model gets search_tools, describe_tool and run_code, and the program's calls reach the stdio
// fixture.

const harness = useAnthropicHarness();
const { toolkit } = harness;
const client = (script: Step[]): Promise<Anthropic> => harness.client(script);

let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(toolkit, { timeoutMs: 20_000, filter: { namespaces: ['fx'] } });
});
afterAll(async () => {
  await code.close();
});

describe("toAnthropicTools({ mode: 'code' }) and runToolUses", () => {
  it('offers the three code-mode tools and answers each, the program running upstream', async () => {
    const tools = await toAnthropicTools(toolkit, { mode: 'code', codeMode: code });
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'describe_tool', 'run_code']);
    const program = [
      "console.log('adding');",
      'const { sum } = await tools.fx.add({ a: 2, b: 3 });',
      'return sum;',
    ].join('\n');
    const anthropic = await client([
      message([
        use('s', 'search_tools', { query: 'add numbers' }),
        use('d', 'describe_tool', { id: 'fx:add' }),
        use('r', 'run_code', { code: program }),
        use('x', 'run_code', { code: 'throw new Error("nope");' }),
      ]),
      message([{ type: 'text', text: '5' }], 'end_turn'),
    ]);
    const messages: MessageParam[] = [{ role: 'user', content: 'add' }];
    const first = await anthropic.messages.create({
      model: 'mock',
      max_tokens: 100,
      messages,
      tools,
    });
    const results = await runToolUses(toolkit, first, { tools });
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: results },
    );
    const second = await anthropic.messages.create({
      model: 'mock',
      max_tokens: 100,
      messages,
      tools,
    });
    expect(second.content).toEqual([{ type: 'text', text: '5' }]);
    expect(harness.server()?.requests.map((request) => request.problems)).toEqual([[], []]);

    expect(results.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ['s', false],
      ['d', false],
      ['r', false],
      ['x', true],
    ]);
    const texts = results.map((r) =>
      (r.content as { type: string; text?: string }[]).map((block) => block.text).join('\n'),
    );
    expect(texts[0]).toContain('"call":"tools.fx.add"');
    expect(texts[1]).toContain('add(args: {');
    expect(texts[2]).toBe('5\nlogs:\n[log] adding');
    expect(texts[3]).toMatch(/^execution: Error: nope/);
  });
});
