import { createIndex } from '@toolplane/toolindex';
import type { Tool } from '@toolplane/toolmodel';
import { describe, expect, it } from 'vitest';
import { CallHandedOn, handedOn } from '../handed-on.js';
import { createLocalRegistry } from '../local-registry.js';
import { createRunner } from '../runner/runner.js';
import { rejection } from '../testing/helpers.js';
import {
  approval,
  type ApprovalAnswer,
  type ApprovalDecision,
  type ApprovalOptions,
  type ApprovalRequest,
} from './approval.js';

const schema = { type: 'object' } as const;

const tools: Tool[] = [
  { name: 'delete', namespace: 'fs', inputSchema: schema, annotations: { destructiveHint: true } },
  { name: 'read', namespace: 'fs', inputSchema: schema, annotations: { readOnlyHint: true } },
  { name: 'touch', namespace: 'fs', inputSchema: schema },
  { name: 'pay', namespace: 'bank', inputSchema: schema, annotations: { readOnlyHint: false } },
];

interface Caller {
  readonly id: string | undefined;
}

/** A runner over the tools above whose handlers count their runs, with `approval(options)`. */
function setup({
  answers: given = [],
  ...options
}: Partial<ApprovalOptions<Caller>> & { answers?: ApprovalAnswer[] }) {
  const index = createIndex();
  const registry = createLocalRegistry();
  const runs: string[] = [];
  for (const tool of tools) {
    const id = `${tool.namespace}:${tool.name}`;
    index.registerTool(tool, { kind: 'local', local: { name: id } });
    registry.register(id, (args) => {
      runs.push(id);
      return { ran: id, args };
    });
  }
  const asked: ApprovalRequest[] = [];
  const decisions: ApprovalDecision[] = [];
  const answers = [...given];
  let caller: Caller = { id: 'session-1' };
  const middleware = approval<Caller>({
    ask: (request) => {
      asked.push(request);
      return Promise.resolve(answers.shift() ?? 'accept');
    },
    session: () => caller,
    onDecision: (decision) => decisions.push(decision),
    ...options,
  });
  const runner = createRunner({ index, local: registry, middleware: [middleware] });
  return {
    runner,
    runs,
    asked,
    decisions,
    setCaller: (next: Caller) => {
      caller = next;
    },
  };
}

describe('approval()', () => {
  it('runs a read-only tool without asking', async () => {
    const { runner, runs, asked } = setup({});
    await runner.run('fs:read', { path: 'a' });
    expect(runs).toEqual(['fs:read']);
    expect(asked).toEqual([]);
  });

  it('runs a destructive tool once when the person accepts', async () => {
    const { runner, runs, asked, decisions } = setup({ answers: ['accept'] });
    const result = await runner.run('fs:delete', { path: 'a' });
    expect(result.structured).toEqual({ ran: 'fs:delete', args: { path: 'a' } });
    expect(runs).toEqual(['fs:delete']);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ toolId: 'fs:delete', server: 'local', policy: 'destructive' });
    expect(decisions.map((d) => [d.type, d.reason, d.session])).toEqual([
      ['asked', undefined, 'session-1'],
      ['granted', 'accepted', 'session-1'],
    ]);
    expect(decisions[0]?.argsHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.each([
    ['decline', 'declined'],
    ['cancel', 'cancelled'],
    ['yes', 'invalid_answer'],
  ] as const)(
    'refuses the call without running it when the answer is %s',
    async (answer, reason) => {
      const { runner, runs, decisions } = setup({ answers: [answer as ApprovalAnswer] });
      const error = await rejection(runner.run('fs:delete', { path: 'a' }));
      expect(error.code).toBe('approval_denied');
      expect(error.message).toContain('approval.except');
      expect(runs).toEqual([]);
      expect(decisions.at(-1)).toMatchObject({ type: 'refused', reason });
    },
  );

  it('refuses the call when ask fails (nobody can be asked)', async () => {
    const { runner, runs, decisions } = setup({
      ask: () => Promise.reject(new Error('no elicitation')),
    });
    expect((await rejection(runner.run('fs:delete', {}))).code).toBe('approval_denied');
    expect(runs).toEqual([]);
    expect(decisions.at(-1)?.reason).toBe('unavailable');
  });

  it('refuses the call when nobody answers within timeoutMs, and a late accept runs nothing', async () => {
    let answer!: (value: ApprovalAnswer) => void;
    let seen!: AbortSignal;
    const { runner, runs, decisions } = setup({
      timeoutMs: 5,
      ask: (request) => {
        seen = request.signal;
        return new Promise((resolve) => (answer = resolve));
      },
    });
    const error = await rejection(runner.run('fs:delete', {}));
    expect(error.code).toBe('approval_denied');
    expect(seen.aborted).toBe(true);
    answer('accept');
    await Promise.resolve();
    expect(runs).toEqual([]);
    expect(decisions.at(-1)?.reason).toBe('timeout');
  });

  it('fails with cancelled when the caller cancels while the person decides', async () => {
    const controller = new AbortController();
    const { runner, runs } = setup({
      ask: () => {
        controller.abort();
        return new Promise<ApprovalAnswer>(() => undefined);
      },
    });
    const error = await rejection(runner.run('fs:delete', {}, { signal: controller.signal }));
    expect(error.code).toBe('cancelled');
    expect(runs).toEqual([]);
  });

  it('tells no refusal for a call handed on to its retry, and ends it as handed on', async () => {
    const controller = new AbortController();
    const { runner, runs, decisions } = setup({
      ask: () => {
        controller.abort(new CallHandedOn('the retry runs it again'));
        return new Promise<ApprovalAnswer>(() => undefined);
      },
    });
    const error = await rejection(runner.run('fs:delete', {}, { signal: controller.signal }));
    expect(error.code).toBe('cancelled');
    expect(CallHandedOn.isInstance(error.cause)).toBe(true);
    expect(handedOn(controller.signal)).toBe(true);
    expect(runs).toEqual([]);
    // Asked here; granted or refused where the retry runs.
    expect(decisions.map((d) => d.type)).toEqual(['asked']);
  });

  it('asks again for every call when remember is never', async () => {
    const { runner, asked } = setup({});
    await runner.run('fs:delete', { path: 'a' });
    await runner.run('fs:delete', { path: 'a' });
    expect(asked).toHaveLength(2);
  });

  it('with remember: session, reuses a grant only for the same tool, arguments and session', async () => {
    const { runner, asked, runs, decisions, setCaller } = setup({ remember: 'session' });
    await runner.run('fs:delete', { path: 'a', force: true });
    // Key order does not make different arguments.
    await runner.run('fs:delete', { force: true, path: 'a' });
    expect(asked).toHaveLength(1);
    expect(decisions.at(-1)?.reason).toBe('remembered');
    await runner.run('fs:delete', { path: 'b', force: true });
    expect(asked).toHaveLength(2);
    setCaller({ id: 'session-2' });
    await runner.run('fs:delete', { path: 'a', force: true });
    expect(asked).toHaveLength(3);
    setCaller({ id: undefined });
    await runner.run('fs:delete', { path: 'a', force: true });
    await runner.run('fs:delete', { path: 'a', force: true });
    expect(asked).toHaveLength(5);
    expect(runs).toHaveLength(6);
  });

  it('does not remember a refusal', async () => {
    const { runner, asked, runs } = setup({ remember: 'session', answers: ['decline', 'accept'] });
    expect((await rejection(runner.run('fs:delete', {}))).code).toBe('approval_denied');
    await runner.run('fs:delete', {});
    expect(asked).toHaveLength(2);
    expect(runs).toEqual(['fs:delete']);
  });

  it('asks for tools matching a tools glob and never for except, which wins', async () => {
    const { runner, asked } = setup({ tools: ['bank:*', 'fs:re?d'], except: ['fs:delete'] });
    await runner.run('bank:pay', {});
    await runner.run('fs:read', {});
    await runner.run('fs:delete', {});
    expect(asked.map((request) => request.policy)).toEqual(['tools:bank:*', 'tools:fs:re?d']);
  });

  it('asks for unannotated tools only when unannotated is on', async () => {
    const off = setup({});
    await off.runner.run('fs:touch', {});
    await off.runner.run('bank:pay', {});
    expect(off.asked).toEqual([]);
    const on = setup({ unannotated: true, destructive: false });
    await on.runner.run('fs:touch', {});
    await on.runner.run('fs:delete', {});
    await on.runner.run('bank:pay', {});
    expect(on.asked.map((request) => [request.toolId, request.policy])).toEqual([
      ['fs:touch', 'unannotated'],
    ]);
  });

  it('shows the arguments escaped and bounded, so control and bidi characters cannot hide text', async () => {
    const { runner, asked } = setup({});
    const huge = 'x'.repeat(1_000_000);
    await runner.run('fs:delete', { path: 'a\u202Etxt.exe\u0007\r', huge });
    const text = asked[0]?.argsText ?? '';
    expect(text).toContain('\\u202e');
    // Nothing below U+0020 but the indentation's line breaks, and no bidi override.
    const unsafe = Array.from(text).filter(
      (char) => (char < ' ' && char !== '\n') || char === '\u202e',
    );
    expect(unsafe).toEqual([]);
    expect(text.length).toBeLessThan(4100);
    expect(text).toMatch(/more characters not shown\)$/);
  });

  it('ignores an onDecision that throws', async () => {
    const { runner, runs } = setup({
      onDecision: () => {
        throw new Error('sink down');
      },
    });
    await runner.run('fs:delete', {});
    expect(runs).toEqual(['fs:delete']);
  });

  it("tells a middleware outside it of the call's own steps through onApproval", async () => {
    const index = createIndex();
    const registry = createLocalRegistry();
    for (const tool of tools) {
      const id = `${tool.namespace}:${tool.name}`;
      index.registerTool(tool, { kind: 'local', local: { name: id } });
      registry.register(id, () => id);
    }
    const answers: ApprovalAnswer[] = ['accept', 'decline'];
    const heard: string[] = [];
    const runner = createRunner({
      index,
      local: registry,
      middleware: [
        (next) => (call) =>
          next({
            ...call,
            onApproval: (decision) => {
              heard.push(`${call.toolId} ${decision.type} ${decision.reason ?? ''}`.trimEnd());
              throw new Error('a live log that fails');
            },
          }),
        approval({ ask: () => Promise.resolve(answers.shift() ?? 'cancel') }),
      ],
    });
    await runner.run('fs:delete', { path: 'a' });
    await runner.run('fs:read', {});
    expect(await rejection(runner.run('fs:delete', { path: 'b' }))).toMatchObject({
      code: 'approval_denied',
    });
    expect(heard).toEqual([
      'fs:delete asked',
      'fs:delete granted accepted',
      'fs:delete asked',
      'fs:delete refused declined',
    ]);
  });

  it.each([
    [{ timeoutMs: 0 }],
    [{ timeoutMs: Number.NaN }],
    [{ remember: 'forever' }],
    [{ ask: undefined }],
    [{ tools: 'fs:*' }],
  ])('rejects bad options %j with invalid_argument', (bad) => {
    const options = { ask: () => Promise.resolve('accept' as const), ...bad } as ApprovalOptions;
    let code: string | undefined;
    try {
      approval(options);
    } catch (error) {
      code = (error as { code?: string }).code;
    }
    expect(code).toBe('invalid_argument');
  });
});
