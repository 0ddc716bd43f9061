import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CALLER_META_KEY } from './connectors/connector.js';
import { defineTool } from './define-tool.js';
import { getSession, runInSession } from './session.js';
import { createToolkit } from './toolkit/toolkit.js';

describe('getSession outside a served call', () => {
  it('logs to nobody and refuses to elicit or sample with no_delegate', async () => {
    const session = getSession();
    await expect(session.log('info', 'nobody hears this')).resolves.toBeUndefined();
    await expect(
      session.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } }),
    ).rejects.toMatchObject({ code: 'no_delegate' });
    await expect(
      session.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
      }),
    ).rejects.toMatchObject({ code: 'no_delegate' });
  });

  it('inherits the fields a nested session does not set', async () => {
    const heard: unknown[] = [];
    await runInSession(
      {
        log: (level, data) => {
          heard.push([level, data]);
          return Promise.resolve();
        },
      },
      () => runInSession({ id: 'inner' }, () => getSession().log('warning', 'deep')),
    );
    expect(heard).toEqual([['warning', 'deep']]);
  });
});

describe('the session of a served call', () => {
  it("logs through session.logger to the caller's log, at MCP's level names", () => {
    const heard: unknown[] = [];
    const log = (level: string, data: unknown): Promise<void> => {
      heard.push([level, data]);
      return Promise.resolve();
    };
    runInSession({ log }, () => {
      const { logger } = getSession();
      logger.debug('starting');
      logger.info('fetched', { rows: 3 });
      logger.warn('slow upstream');
      logger.error('gave up', { after: 2 });
    });
    expect(heard).toEqual([
      ['debug', 'starting'],
      ['info', { message: 'fetched', rows: 3 }],
      ['warning', 'slow upstream'],
      ['error', { message: 'gave up', after: 2 }],
    ]);
  });

  it('keeps a logger it was given, and a failing log never reaches the code', async () => {
    const mine: string[] = [];
    const given = {
      debug: (m: string) => mine.push(m),
      info: (m: string) => mine.push(m),
      warn: (m: string) => mine.push(m),
      error: (m: string) => mine.push(m),
    };
    runInSession({ log: () => Promise.resolve(), logger: given }, () => {
      getSession().logger.info('to mine');
    });
    expect(mine).toEqual(['to mine']);
    runInSession({ log: () => Promise.reject(new Error('client gone')) }, () => {
      getSession().logger.info('lost, quietly');
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
  });

  it("never shows the toolkit's caller tag in session.meta", async () => {
    let seen: Readonly<Record<string, unknown>> | undefined;
    const peek = defineTool({
      name: 'peek',
      description: 'Reports the session meta it sees.',
      input: z.object({}),
      run: () => {
        seen = getSession().meta;
        return 'ok';
      },
    });
    const toolkit = createToolkit({ tools: [peek] });
    await toolkit.callTool(
      'builtin:peek',
      {},
      {
        meta: { [CALLER_META_KEY]: 'gateway-call-1', traceparent: '00-abc-def-01' },
      },
    );
    expect(seen).toEqual({ traceparent: '00-abc-def-01' });
  });
});
