import { SdkErrorCode } from '@modelcontextprotocol/client';
import { connectStdio, type StdioConnection } from '@toolplane/fixtures';
import { ToolError } from '@toolplane/toolmodel';
import { createMcpExecutor, type ProgressEvent } from '@toolplane/toolrun';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callClientOf } from './call-client.js';

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ToolError.isInstance(error)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
}

// toolrun's executor calls SDK v2 clients; the connectors hold SDK v1 ones (real ones here, to
// the fixture server over stdio) and hand them over through callClientOf.
describe('callClientOf', () => {
  let connection: StdioConnection;
  beforeAll(async () => {
    connection = await connectStdio();
  });
  afterAll(async () => {
    await connection.close();
  });

  it('calls the tool and returns its result', async () => {
    const executor = createMcpExecutor({ clients: { fx: callClientOf(connection.client) } });
    const result = await executor.callTool('fx', 'add', { a: 2, b: 3 });
    expect(result.structuredContent).toEqual({ sum: 5 });
  });

  it('delivers the server’s progress to the listener', async () => {
    const executor = createMcpExecutor({ clients: { fx: callClientOf(connection.client) } });
    const events: ProgressEvent[] = [];
    const result = await executor.callTool(
      'fx',
      'slow',
      { ms: 0, label: 'seam-progress' },
      { onProgress: (event) => events.push(event) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(events).toEqual([{ progress: 0, message: 'started' }]);
  });

  it('gives the executor a v1 timeout it reports as timeout', async () => {
    const executor = createMcpExecutor({
      clients: { fx: callClientOf(connection.client) },
      timeout: 150,
    });
    const error = await rejection(
      executor.callTool('fx', 'slow', { ms: 60_000, label: 'seam-timeout' }),
    );
    expect(error.code).toBe('timeout');
    expect(error.cause).toMatchObject({ code: SdkErrorCode.RequestTimeout });
  });

  it('gives the executor a v1 closed connection it reports as execution', async () => {
    const dying = await connectStdio();
    try {
      const executor = createMcpExecutor({ clients: { fx: callClientOf(dying.client) } });
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const pending = executor.callTool(
        'fx',
        'slow',
        { ms: 60_000, label: 'seam-killed' },
        {
          onProgress: () => {
            started();
          },
        },
      );
      const error = rejection(pending);
      await running;
      process.kill(dying.pid, 'SIGKILL');
      expect((await error).code).toBe('execution');
      expect((await error).cause).toMatchObject({ code: SdkErrorCode.ConnectionClosed });
    } finally {
      await dying.close();
    }
  });
});
