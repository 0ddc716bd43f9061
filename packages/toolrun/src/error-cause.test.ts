import { connectInMemory, type ConnectedClient } from '@toolplane/fixtures';
import { createIndex } from '@toolplane/toolindex';
import { ToolError } from '@toolplane/toolmodel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBench, rejection } from './testing/helpers.js';
import { createMcpExecutor } from './mcp-executor.js';
import { createRunner } from './runner/runner.js';
import type { Runner } from './runner/types.js';

// McpExecutor documents an isError result as its error's `cause`; through the runner it must be
// the same one level, not buried a level deeper under a wrapper.
describe('the cause of an MCP isError result', () => {
  let connection: ConnectedClient;
  let runner: Runner;
  beforeAll(async () => {
    connection = await connectInMemory();
    const index = createIndex();
    index.registerMcpTools('fx', (await connection.client.listTools()).tools, { namespace: 'fx' });
    runner = createRunner({
      index,
      mcp: createMcpExecutor({ clients: { fx: connection.client } }),
    });
  });
  afterAll(async () => {
    await connection.close();
  });

  it('is the cause of the executor’s error', async () => {
    const executor = createMcpExecutor({ clients: { fx: connection.client } });
    const error = await rejection(executor.callTool('fx', 'report-error', { message: 'quota' }));
    expect(error.code).toBe('execution');
    expect(error.cause).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'quota' }],
    });
  });

  it('is the cause of the runner’s error, which carries the tool, backend and op', async () => {
    const error = await rejection(runner.run('fx:report-error', { message: 'quota' }));
    expect(error).toMatchObject({ code: 'execution', toolId: 'fx:report-error', op: 'execute' });
    expect(error.backend).toMatchObject({ kind: 'mcp', mcp: { serverName: 'fx' } });
    expect(error.message).toBe('quota');
    expect(error.cause).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'quota' }],
    });
  });
});

describe('a backend’s ToolError through the runner', () => {
  it('keeps its code and cause, gaining the call’s context, when it names no tool', async () => {
    const bench = createLocalBench();
    const reason = new Error('upstream deadline');
    const id = bench.define('slow', () => {
      throw new ToolError('timeout', 'the upstream took too long', { cause: reason });
    });
    const error = await rejection(bench.runnerWith().run(id));
    expect(error).toMatchObject({ code: 'timeout', toolId: id, op: 'execute' });
    expect(error.backend).toEqual({ kind: 'local', local: { name: 'slow' } });
    expect(error.cause).toBe(reason);
  });

  it('is wrapped, kept as the cause, when it is another tool’s error', async () => {
    const bench = createLocalBench();
    const inner = new ToolError('execution', 'inner tool failed', {
      toolId: 'mw:other',
      op: 'execute',
    });
    const id = bench.define('outer', () => {
      throw inner;
    });
    const error = await rejection(bench.runnerWith().run(id));
    expect(error).toMatchObject({ code: 'execution', toolId: id });
    expect(error.cause).toBe(inner);
  });

  it('passes call_depth_exceeded on as it is: the caller went too deep, not this tool', async () => {
    const bench = createLocalBench();
    const deep = new ToolError('call_depth_exceeded', 'prompt "p" would nest 9 calls deep', {
      toolId: 'builtin:p',
    });
    const id = bench.define('recurse', () => {
      throw deep;
    });
    expect(await rejection(bench.runnerWith().run(id))).toBe(deep);
  });
});
