import { createIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import { createLocalRegistry, createRunner, type ApprovalAnswer } from '@toolplane/toolrun';
import { describe, expect, it } from 'vitest';
import { approvalPredicate, withApproval } from './approval.js';
import type { ToolSource } from './source.js';

const drop: Tool = {
  name: 'drop',
  namespace: 'db',
  inputSchema: { type: 'object', properties: { table: { type: 'string' } } },
  annotations: { destructiveHint: true },
};
const count: Tool = {
  name: 'count',
  namespace: 'db',
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
};

function source(runs: string[]): ToolSource {
  const index = createIndex();
  const local = createLocalRegistry();
  for (const tool of [drop, count]) {
    index.registerTool(tool, { kind: 'local', local: { name: tool.name } });
    local.register(tool.name, (args) => {
      runs.push(tool.name);
      return args;
    });
  }
  return { index, runner: createRunner({ index, local }) };
}

describe('approvalPredicate', () => {
  it('says which tools the policy asks for', () => {
    const needs = approvalPredicate({ destructive: true, tools: ['db:co*'], except: [] });
    expect(needs(drop)).toBe(true);
    expect(needs({ ...count, name: 'copy' })).toBe(true);
    expect(approvalPredicate({})(count)).toBe(false);
  });
});

describe('withApproval', () => {
  it.each([
    ['accept', ['drop']],
    ['decline', []],
  ] as const)('runs a destructive call only when ask answers accept (%s)', async (answer, ran) => {
    const runs: string[] = [];
    const asked: string[] = [];
    const gated = withApproval(source(runs), {
      ask: (request) => {
        asked.push(request.argsText);
        return Promise.resolve<ApprovalAnswer>(answer);
      },
    });
    const outcome = await gated.callTool?.('db:drop', { table: 'users' }).then(
      () => 'ran',
      (error: unknown) => (error as { code?: string }).code,
    );
    expect(outcome).toBe(answer === 'accept' ? 'ran' : 'approval_denied');
    expect(runs).toEqual(ran);
    expect(asked).toEqual(['{\n  "table": "users"\n}']);
  });

  it('runs a read-only call without asking, and fails an unknown tool as the index does', async () => {
    const runs: string[] = [];
    const gated = withApproval(source(runs), { ask: () => Promise.reject(new Error('no')) });
    await gated.runner.run('db:count', {});
    expect(runs).toEqual(['count']);
    const code = await gated.runner.run('db:nope', {}).then(
      () => undefined,
      (error: unknown) => (error as { code?: string }).code,
    );
    expect(code).toBe('tool_not_found');
  });
});
