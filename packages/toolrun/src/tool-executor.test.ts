import { createIndex } from '@toolplane/toolindex';
import { describe, expect, it } from 'vitest';
import { createLocalRegistry } from './local-registry.js';
import { createRunner } from './runner/runner.js';
import {
  createInMemoryToolExecutor,
  createToolExecutor,
  InMemoryToolExecutor,
  type InMemoryTool,
  type ToolExecutor,
} from './tool-executor.js';

function executor(options: Parameters<typeof createToolExecutor>[1] = {}) {
  const index = createIndex();
  index.registerTool(
    {
      name: 'greet',
      namespace: 'demo',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    { kind: 'local', local: { name: 'greet' } },
  );
  const local = createLocalRegistry().register('greet', (args, { meta }) => ({
    text: `hello ${(args as { name: string }).name}`,
    meta,
  }));
  return createToolExecutor(createRunner({ index, local }), options);
}

describe('createToolExecutor', () => {
  it('resolves to a success result with the output and a duration', async () => {
    const result = await executor().invoke({ toolName: 'demo:greet', payload: { name: 'Ada' } });
    expect(result).toMatchObject({ toolName: 'demo:greet', success: true });
    expect(result.output).toMatchObject({ text: 'hello Ada' });
    expect(result.metadata.duration).toBeGreaterThanOrEqual(0);
  });

  it('passes the context to the tool as request metadata', async () => {
    const result = await executor().invoke({
      toolName: 'demo:greet',
      payload: { name: 'Ada' },
      context: { traceId: 't-1', userId: 'u-1', tags: ['a'] },
    });
    expect(result.output).toMatchObject({ meta: { traceId: 't-1', userId: 'u-1', tags: ['a'] } });
  });

  it('resolves, never rejects, with the error code when the call fails', async () => {
    const tool = executor();
    const missing = await tool.invoke({ toolName: 'demo:nope' });
    expect(missing).toMatchObject({ success: false, errorCode: 'tool_not_found' });
    expect(missing.errorMessage).toBeTypeOf('string');
    const invalid = await tool.invoke({ toolName: 'demo:greet', payload: { name: 1 } });
    expect(invalid).toMatchObject({ success: false, errorCode: 'validation' });
    const badId = await tool.invoke({ toolName: '' });
    expect(badId).toMatchObject({ success: false, errorCode: 'invalid_tool_id' });
  });
});

describe.each([
  ['createInMemoryToolExecutor', createInMemoryToolExecutor],
  [
    'new InMemoryToolExecutor',
    (handlers: Record<string, InMemoryTool>): ToolExecutor => new InMemoryToolExecutor(handlers),
  ],
])('%s', (_form, make) => {
  const tools = make({
    double: (payload) => Promise.resolve((payload as number) * 2),
    fail: () => Promise.reject(new Error('boom')),
    whoami: (_payload, context) => Promise.resolve(context?.userId),
  });

  it('calls the named function with the payload and context', async () => {
    expect(await tools.invoke({ toolName: 'double', payload: 21 })).toMatchObject({
      success: true,
      output: 42,
    });
    expect(await tools.invoke({ toolName: 'whoami', context: { userId: 'u-7' } })).toMatchObject({
      output: 'u-7',
    });
  });

  it('reports a failing function as execution', async () => {
    expect(await tools.invoke({ toolName: 'fail' })).toMatchObject({
      success: false,
      errorCode: 'execution',
      errorMessage: 'boom',
    });
  });

  it('treats inherited names as not registered, never calling them', async () => {
    for (const toolName of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf']) {
      const result = await tools.invoke({ toolName });
      expect(result).toMatchObject({ success: false, errorCode: 'tool_not_found' });
    }
  });

  it('reports cancelled without calling when the signal is already aborted', async () => {
    let called = false;
    const guarded = make({
      work: () => {
        called = true;
        return Promise.resolve(null);
      },
    });
    const result = await guarded.invoke({ toolName: 'work', signal: AbortSignal.abort() });
    expect(result).toMatchObject({ success: false, errorCode: 'cancelled' });
    expect(called).toBe(false);
  });

  it('resolves cancelled as soon as the signal aborts, even if the function ignores it', async () => {
    const controller = new AbortController();
    const deaf = make({ hang: () => new Promise(() => undefined) });
    const pending = deaf.invoke({ toolName: 'hang', signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ success: false, errorCode: 'cancelled' });
  });
});

describe('InMemoryToolExecutor', () => {
  it('serves an async echo tool and names the tool when it is not registered', async () => {
    const executor = new InMemoryToolExecutor({ echo: (payload) => Promise.resolve(payload) });
    expect(await executor.invoke({ toolName: 'echo', payload: 'hello' })).toMatchObject({
      success: true,
      output: 'hello',
    });
    const unknown = await new InMemoryToolExecutor({}).invoke({ toolName: 'unknown', payload: {} });
    expect(unknown.success).toBe(false);
    expect(unknown.errorMessage).toContain('not registered');
  });

  it('rejects handlers that are not a record with invalid_argument', () => {
    expect(() => new InMemoryToolExecutor(null as unknown as Record<string, InMemoryTool>)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

describe('metadata.cost', () => {
  const cost = (_invocation: unknown, result: { success: boolean; output?: unknown }) =>
    result.success ? String(result.output).length * 0.5 : 0.1;

  it('is priced by the cost function on success and failure, beside the duration', async () => {
    const tools = new InMemoryToolExecutor(
      { echo: (payload) => payload, fail: () => Promise.reject(new Error('boom')) },
      { cost },
    );
    const ok = await tools.invoke({ toolName: 'echo', payload: 'abcd' });
    expect(ok.metadata.cost).toBe(2);
    expect(ok.metadata.duration).toBeGreaterThanOrEqual(0);
    expect((await tools.invoke({ toolName: 'fail' })).metadata.cost).toBe(0.1);
    const factory = createInMemoryToolExecutor({ echo: (p) => p }, { cost });
    expect((await factory.invoke({ toolName: 'echo', payload: 'ab' })).metadata.cost).toBe(1);
  });

  it('is priced for a runner executor too', async () => {
    const result = await executor({
      cost: (invocation) => (invocation.toolName === 'demo:greet' ? 3 : 0),
    }).invoke({
      toolName: 'demo:greet',
      payload: { name: 'Ada' },
    });
    expect(result).toMatchObject({ success: true, metadata: { cost: 3 } });
  });

  it('is left out, the outcome kept, when the cost function throws or returns no number', async () => {
    const throwing = new InMemoryToolExecutor(
      { echo: (p) => p },
      {
        cost: () => {
          throw new Error('no price list');
        },
      },
    );
    const result = await throwing.invoke({ toolName: 'echo', payload: 1 });
    expect(result).toMatchObject({ success: true, output: 1 });
    expect(result.metadata).not.toHaveProperty('cost');
    const nan = new InMemoryToolExecutor({ echo: (p) => p }, { cost: () => Number.NaN });
    expect((await nan.invoke({ toolName: 'echo' })).metadata).not.toHaveProperty('cost');
  });

  it('rejects a cost that is not a function with invalid_argument', () => {
    expect(() => createInMemoryToolExecutor({}, { cost: 5 as unknown as () => number })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
