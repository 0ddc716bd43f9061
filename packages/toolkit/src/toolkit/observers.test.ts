import type { Middleware } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { createToolkit } from './toolkit.js';

/** A middleware that writes what it sees of each call to `log`, under `name`. */
function watching(name: string, log: string[]): Middleware {
  return (next) => async (call) => {
    log.push(`${name} start ${call.toolId}`);
    try {
      const result = await next({
        ...call,
        onApproval: (step) => log.push(`${name} approval ${step.type}`),
      });
      log.push(`${name} ok`);
      return result;
    } catch (error) {
      log.push(`${name} ${(error as { code?: string }).code ?? 'error'}`);
      throw error;
    }
  };
}

function setup(answer: 'accept' | 'decline') {
  const log: string[] = [];
  const toolkit = createToolkit({
    tools: [
      defineTool({
        name: 'wipe',
        description: 'Wipes a disk.',
        input: z.object({ disk: z.string() }),
        annotations: { destructiveHint: true },
        run: ({ disk }) => {
          log.push(`ran wipe ${disk}`);
          return `wiped ${disk}`;
        },
      }),
    ],
    approval: {
      ask: () => {
        log.push('asked');
        return Promise.resolve(answer);
      },
    },
    observers: [watching('observer', log)],
    middleware: [watching('middleware', log)],
  });
  return { toolkit, log };
}

describe('createToolkit({ observers })', () => {
  it('sees a call approval refuses, which no middleware and no tool sees', async () => {
    const { toolkit, log } = setup('decline');
    await expect(toolkit.callTool('builtin:wipe', { disk: 'a' })).rejects.toMatchObject({
      code: 'approval_denied',
    });
    expect(log).toEqual([
      'observer start builtin:wipe',
      'observer approval asked',
      'asked',
      'observer approval refused',
      'observer approval_denied',
    ]);
  });

  it('sees a call wait for approval, then run through the middleware', async () => {
    const { toolkit, log } = setup('accept');
    await toolkit.callTool('builtin:wipe', { disk: 'b' });
    expect(log).toEqual([
      'observer start builtin:wipe',
      'observer approval asked',
      'asked',
      'observer approval granted',
      'middleware start builtin:wipe',
      'ran wipe b',
      'middleware ok',
      'observer ok',
    ]);
  });

  it('sees every call without an approval policy, as the outermost middleware', async () => {
    const log: string[] = [];
    const toolkit = createToolkit({
      tools: [
        defineTool({
          name: 'ping',
          description: 'Answers pong.',
          input: z.object({}),
          run: () => 'pong',
        }),
      ],
      observers: [watching('observer', log)],
      middleware: [watching('middleware', log)],
    });
    await toolkit.callTool('builtin:ping', {});
    expect(log).toEqual([
      'observer start builtin:ping',
      'middleware start builtin:ping',
      'middleware ok',
      'observer ok',
    ]);
  });
});
