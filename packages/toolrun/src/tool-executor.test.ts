import { createIndex } from '@toolplane/toolindex';
import { describe, expect, it } from 'vitest';
import { createLocalRegistry } from './local-registry.js';
import { createRunner } from './runner.js';
import { createInMemoryToolExecutor, createToolExecutor } from './tool-executor.js';

function executor() {
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
  return createToolExecutor(createRunner({ index, local }));
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

describe('createInMemoryToolExecutor', () => {
  const tools = createInMemoryToolExecutor({
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
    const guarded = createInMemoryToolExecutor({
      work: () => {
        called = true;
        return Promise.resolve(null);
      },
    });
    const result = await guarded.invoke({ toolName: 'work', signal: AbortSignal.abort() });
    expect(result).toMatchObject({ success: false, errorCode: 'cancelled' });
    expect(called).toBe(false);
  });
});
