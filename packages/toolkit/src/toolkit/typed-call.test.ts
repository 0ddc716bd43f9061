import { fixtureCommand } from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { rejectionCodeOf } from '@toolplane/toolmodel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { textContent, toolResult } from '../content.js';
import { defineTool } from '../define-tool.js';
import { jsonResource } from '../resources/resources.js';
import { runToolkit } from '../testing/run-toolkit.js';
import { createToolkit, type Toolkit } from './toolkit.js';

const open: Toolkit[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  await Promise.all(open.splice(0).map((toolkit) => toolkit.close()));
});

const add = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number().default(0) }),
  output: z.object({ sum: z.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});

const stats = defineTool({
  name: 'stats',
  description: 'Counts the words of a text, with a sentence about it.',
  input: z.object({ text: z.string() }),
  output: z.object({ words: z.number() }),
  run: ({ text }) => {
    const words = text.split(/\s+/).filter(Boolean).length;
    return toolResult(textContent(`${String(words)} words`), { structured: { words } });
  },
});

function toolkitWith(options: Parameters<typeof createToolkit>[0]): Toolkit {
  const toolkit = createToolkit(options);
  open.push(toolkit);
  return toolkit;
}

describe('Toolkit.call with a tool definition', () => {
  it('returns the tool output as structured, typed, without unwrapping the resource', async () => {
    const toolkit = toolkitWith({ tools: [add] });
    const result = await toolkit.call(add, { a: 2, b: 3 });
    const sum: number = result.structured.sum;
    expect(sum).toBe(5);
  });

  it('returns the structured content of a builtin that answers with a full tool result', async () => {
    const toolkit = toolkitWith({ tools: [stats] });
    const result = await toolkit.call(stats, { text: 'define once, run anywhere' });
    expect(result.structured).toEqual({ words: 4 });
  });

  it('returns the same resource as before, the structured value not enumerable', async () => {
    const toolkit = toolkitWith({ tools: [add] });
    const result = await toolkit.call(add, { a: 2 });
    expect(result).toEqual(jsonResource('add', { sum: 2 }));
    expect(Object.keys(result)).not.toContain('structured');
    expect(JSON.parse(JSON.stringify(result))).not.toHaveProperty('structured');
  });

  it('rejects with not_found when the toolkit does not hold that definition', async () => {
    const toolkit = toolkitWith({ tools: [] });
    expect(await rejectionCodeOf(toolkit.call(add, { a: 1 }))).toBe('not_found');
  });

  it('rejects with not_found when another definition has replaced it under its name', async () => {
    const other = defineTool({
      name: 'add',
      description: 'Adds as text.',
      input: z.object({ a: z.number() }),
      run: ({ a }) => String(a),
    });
    const toolkit = toolkitWith({ tools: [add] });
    toolkit.addTool(other);
    const error = await toolkit.call(add, { a: 1 }).catch((e: unknown) => e);
    expect(ToolError.isInstance(error) && error.code).toBe('not_found');
    expect((await toolkit.call(other, { a: 1 }))?.structured).toBe('1');
  });

  it('rejects with validation when the input does not match the schema', async () => {
    const toolkit = toolkitWith({ tools: [add] });
    const wrong = { a: 'two' } as unknown as { a: number };
    expect(await rejectionCodeOf(toolkit.call(add, wrong))).toBe('validation');
  });
});

describe('Toolkit.callTool with a tool definition', () => {
  it('returns the runner result with the tool output as structured', async () => {
    const toolkit = toolkitWith({ tools: [stats] });
    const result = await toolkit.callTool(stats, { text: 'one two' });
    const words: number = result.structured.words;
    expect(words).toBe(2);
    expect(result.mcpResult?.content).toEqual([{ type: 'text', text: '2 words' }]);
  });

  it('rejects with not_found when the toolkit does not hold that definition', async () => {
    const toolkit = toolkitWith({ tools: [add] });
    expect(await rejectionCodeOf(toolkit.callTool(stats, { text: 'x' }))).toBe('not_found');
  });
});

describe('Toolkit.call by key', () => {
  it('returns the tool output as structured next to the resource', async () => {
    const toolkit = toolkitWith({ tools: [add] });
    const result = await toolkit.call('add', { a: 4, b: 1 });
    expect(result?.structured).toEqual({ sum: 5 });
    expect(JSON.parse(result?.text ?? '')).toEqual({ sum: 5 });
  });

  it('returns a prompt delegate answer as structured', async () => {
    const toolkit = toolkitWith({
      prompts: [{ name: 'plan', description: 'Plans.', template: 'Plan it.' }],
      delegate: { call: () => Promise.resolve({ steps: ['a', 'b'] }) },
    });
    const result = await toolkit.call('plan');
    expect(result?.structured).toEqual({ steps: ['a', 'b'] });
  });

  it('returns an MCP tool structuredContent as structured', async () => {
    const toolkit = createToolkit();
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    const { stop } = await runToolkit(toolkit);
    stops.push(stop);
    const result = await toolkit.call('fx:add', { a: 2, b: 40 });
    expect(result?.structured).toEqual({ sum: 42 });
  });
});
