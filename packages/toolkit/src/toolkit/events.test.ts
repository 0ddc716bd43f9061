import { fixtureCommand } from '@toolplane/fixtures';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { runToolkit } from '../testing/run-toolkit.js';
import { createToolkit, type ToolkitEvent } from './toolkit.js';

describe('Toolkit.onEvent', () => {
  it('delivers every event to each listener until it unsubscribes', () => {
    const toolkit = createToolkit();
    const heard: ToolkitEvent[] = [];
    const unsubscribe = toolkit.onEvent((event) => heard.push(event));
    toolkit.onEvent(() => {
      throw new Error('a faulty listener');
    });
    const tool = defineTool({ name: 't', description: 'd', input: z.object({}), run: () => 1 });
    toolkit.addTool(tool);
    expect(heard).toEqual([{ type: 'tool_list_changed', namespace: 'builtin' }]);
    unsubscribe();
    toolkit.addTool(tool);
    expect(heard).toHaveLength(1);
  });
});

describe('Toolkit.connector', () => {
  it('returns the connector of a namespace and relays its log messages as events', async () => {
    const heard: ToolkitEvent[] = [];
    const toolkit = createToolkit();
    toolkit.onEvent((event) => heard.push(event));
    toolkit.addConnector(fixtureCommand('stdio'), { namespace: 'fx' });
    expect(toolkit.connector('none')).toBeUndefined();
    const { stop } = await runToolkit(toolkit);
    try {
      const connector = toolkit.connector('fx');
      expect(connector?.state).toBe('connected');
      await toolkit.callTool('fx:log', { message: 'hi', level: 'error' });
      await expect
        .poll(() => heard.find((event) => event.type === 'log_message'))
        .toEqual({
          type: 'log_message',
          namespace: 'fx',
          level: 'error',
          logger: 'fixture',
          data: 'hi',
        });
    } finally {
      await stop();
    }
  });
});
