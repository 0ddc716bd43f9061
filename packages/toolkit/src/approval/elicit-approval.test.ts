import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { createToolkit } from '../toolkit/toolkit.js';
import type { ApprovalRequest } from '@toolplane/toolrun';
import { approvalForm, type ToolkitApprovalOptions } from './elicit-approval.js';

function setup(approval: ToolkitApprovalOptions) {
  const runs: string[] = [];
  const toolkit = createToolkit({
    approval,
    tools: [
      defineTool({
        name: 'wipe',
        description: 'Wipes a disk.',
        input: z.object({ disk: z.string() }),
        annotations: { destructiveHint: true },
        run: ({ disk }) => {
          runs.push(disk);
          return `wiped ${disk}`;
        },
      }),
    ],
  });
  return { toolkit, runs };
}

async function codeOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return undefined;
}

describe('createToolkit({ approval })', () => {
  it('asks with the given ask and runs the call once on accept', async () => {
    const asked: ApprovalRequest[] = [];
    const { toolkit, runs } = setup({
      ask: (request) => {
        asked.push(request);
        return Promise.resolve('accept');
      },
    });
    await toolkit.callTool('builtin:wipe', { disk: 'sda' });
    expect(runs).toEqual(['sda']);
    expect(asked.map((request) => [request.toolId, request.policy])).toEqual([
      ['builtin:wipe', 'destructive'],
    ]);
  });

  it('refuses a call outside a served session, where nobody can be asked by elicitation', async () => {
    const { toolkit, runs } = setup({});
    expect(await codeOf(toolkit.callTool('builtin:wipe', { disk: 'sda' }))).toBe('approval_denied');
    expect(runs).toEqual([]);
  });

  it('refuses a hostile glob when the toolkit is created', () => {
    let code: unknown;
    try {
      setup({ tools: ['builtin:*a*a*a*a*a*a*a*a*a*b'] });
    } catch (error) {
      code = (error as { code?: unknown }).code;
    }
    expect(code).toBe('invalid_argument');
  });
});

describe('approvalForm', () => {
  it('bounds what it shows of a long tool ID and escapes control characters', () => {
    const form = approvalForm({
      toolId: `fx:${'a'.repeat(500)}`,
      server: 'fx\u001b[2J',
      call: { backend: { kind: 'mcp', mcp: { serverName: 'fx\u001b[2J' } } },
      policy: 'destructive',
      argsHash: 'h',
      argsText: '{}',
    } as unknown as ApprovalRequest);
    expect(form.message).toContain('fx\\u001b[2J');
    expect(form.message).not.toContain('\u001b');
    expect(form.message.split('\n')[0]?.length).toBeLessThan(400);
  });

  it('says where the call would run: its server, the gateway itself, or a provider', () => {
    const first = (backend: unknown, server: string): string =>
      approvalForm({
        toolId: 'x:y',
        server,
        call: { backend },
        policy: 'destructive',
        argsHash: 'h',
        argsText: '{}',
      } as unknown as ApprovalRequest).message.split('\n')[0] ?? '';
    expect(first({ kind: 'mcp', mcp: { serverName: 'fx' } }, 'fx')).toBe(
      'Approve a call to tool "x:y" on server "fx"?',
    );
    expect(first({ kind: 'local', local: { name: 'y' } }, 'local')).toBe(
      'Approve a call to tool "x:y" run by the gateway itself?',
    );
    expect(
      first({ kind: 'provider', provider: { providerId: 'acme', toolId: 'y' } }, 'provider'),
    ).toBe('Approve a call to tool "x:y" through provider "acme"?');
  });
});
