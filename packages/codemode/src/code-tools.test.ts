import { afterAll, describe, expect, it } from 'vitest';
import { createCodeMode } from './code-mode.js';
import { codeModeTools } from './code-tools.js';
import { localToolkit } from './testing/local-toolkit.js';

const code = createCodeMode(localToolkit().toolkit, { timeoutMs: 5_000 });
const [searchTool, describeTool, runCode] = codeModeTools(code);
afterAll(async () => {
  await code.close();
});

describe('codeModeTools', () => {
  it('offers search_tools, describe_tool and run_code', () => {
    expect([searchTool.name, describeTool.name, runCode.name]).toEqual([
      'search_tools',
      'describe_tool',
      'run_code',
    ]);
  });

  it('search_tools answers IDs and where a program calls them', async () => {
    const result = await searchTool.run({ query: 'adds two numbers' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent?.results).toContainEqual(
      expect.objectContaining({ id: 'builtin:add', call: 'tools.builtin.add' }),
    );
  });

  it('describe_tool answers the TypeScript declaration of one tool', async () => {
    const result = await describeTool.run({ id: 'builtin:add' });
    const [block] = result.content;
    expect(block?.type === 'text' ? block.text : '').toContain('add(args: {');
    const missing = await describeTool.run({ id: 'builtin:nope' });
    expect(missing).toMatchObject({ isError: true, code: 'not_found' });
  });

  it('describe_tool takes the call path search_tools gave as well as the ID', async () => {
    const byId = await describeTool.run({ id: 'builtin:get-sum.v2' });
    for (const path of ['tools.builtin.get_sum_v2', 'builtin.get_sum_v2']) {
      expect(await describeTool.run({ id: path })).toEqual(byId);
    }
    const missing = await describeTool.run({ id: 'tools.builtin.nope' });
    expect(missing).toMatchObject({ isError: true, code: 'not_found' });
  });

  it('run_code answers the value as JSON text, with the logs', async () => {
    const result = await runCode.run({
      code: "console.log('hi');\nreturn { sum: (await tools.builtin.add({ a: 1, b: 2 })).sum };",
    });
    expect(result.content).toEqual([
      { type: 'text', text: '{"sum":3}' },
      { type: 'text', text: 'logs:\n[log] hi' },
    ]);
    expect(result.structuredContent).toEqual({ sum: 3 });
  });

  it('run_code answers a failed program with isError, its code and its logs', async () => {
    const result = await runCode.run({ code: "console.warn('w');\nthrow new Error('bad');" });
    expect(result).toMatchObject({ isError: true, code: 'execution' });
    expect(JSON.stringify(result.content)).toContain('bad');
    expect(JSON.stringify(result.content)).toContain('[warn] w');
    expect(await runCode.run({})).toMatchObject({ isError: true, code: 'invalid_argument' });
  });
});
