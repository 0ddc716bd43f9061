import { useFixtureToolkit } from '@toolplane/test-support/fixture-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeMode, type CodeMode } from './code-mode.js';

// What a real MCP server (the stdio fixture) answers reaches the program as it was sent.

const toolkit = useFixtureToolkit();
let code: CodeMode;
beforeAll(() => {
  code = createCodeMode(toolkit, { timeoutMs: 30_000, filter: { namespaces: ['fx'] } });
});
afterAll(async () => {
  await code.close();
});

describe('an upstream text answer', () => {
  it('keeps an ID past 2^53 - 1 as the text sent, never a nearby number', async () => {
    const { value } = await code.run(`
      const bare = await tools.fx.echo({ text: '1234567890123456789' });
      const json = await tools.fx.echo({ text: '{"id": 1234567890123456789}' });
      return [bare, json];
    `);
    expect(value).toEqual(['1234567890123456789', '{"id": 1234567890123456789}']);
  });

  it('still parses a JSON text whose numbers read exactly', async () => {
    const { value } = await code.run(`return await tools.fx.echo({ text: '{"id": 42}' });`);
    expect(value).toEqual({ id: 42 });
  });
});
