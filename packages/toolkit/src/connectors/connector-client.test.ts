import {
  ProtocolError,
  ProtocolErrorCode,
  SdkErrorCode,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';
import { connectInMemory, createFixtureState, type FixtureState } from '@toolplane/fixtures';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectorClient } from './connector-client.js';

interface Connected {
  readonly client: ConnectorClient;
  readonly state: FixtureState;
  /** Every message the client sent, in order. */
  readonly sent: JSONRPCMessage[];
  close(): Promise<void>;
}

const open: Connected[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A ConnectorClient on the fixture server, in memory, recording what it sends. */
async function connect(): Promise<Connected> {
  const state = createFixtureState();
  const sent: JSONRPCMessage[] = [];
  const client = new ConnectorClient({ name: 'test', version: '0' });
  const connection = await connectInMemory({ state, client, sent });
  const connected = { client, state, sent, close: () => connection.close() };
  open.push(connected);
  return connected;
}

const calls = (sent: readonly JSONRPCMessage[]) =>
  sent.filter((m) => 'method' in m && m.method === 'tools/call');

describe('ConnectorClient.callTool', () => {
  it('calls with an ID of its own and answers as the SDK does', async () => {
    const { client, sent } = await connect();
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.structuredContent).toEqual({ sum: 5 });
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(echoed.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(calls(sent).map((m) => ('id' in m ? m.id : undefined))).toEqual([
      'toolplane:1',
      'toolplane:2',
    ]);
  });

  it('rejects with the ProtocolError of an error answer, and keeps serving', async () => {
    const { client } = await connect();
    // Arguments that are not an object fail the server's request schema: a JSON-RPC error.
    const failed = await client
      .callTool({ name: 'add', arguments: 'nope' as never })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ProtocolError);
    expect(failed).toMatchObject({ code: ProtocolErrorCode.InvalidParams });
    const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    expect(result.structuredContent).toEqual({ sum: 2 });
  });

  it('tells the server when the signal aborts, and rejects with the reason', async () => {
    const { client, state, sent } = await connect();
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'slow', arguments: { ms: 10_000, label: 'x' } },
      { signal: controller.signal },
    );
    expect(calls(sent)).toHaveLength(1);
    // The server's handler must be running to see the cancellation (in memory: a few ticks).
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('enough'));
    await expect(call).rejects.toThrow('enough');
    await vi.waitFor(() => {
      expect(state.cancelled).toEqual(['x']);
    });
    expect(sent.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: 'toolplane:1', reason: 'Error: enough' },
    });
  });

  it('times out as the SDK does: SdkError RequestTimeout, and the server is told', async () => {
    const { client, state } = await connect();
    const call = client.callTool(
      { name: 'slow', arguments: { ms: 10_000, label: 't' } },
      { timeout: 50 },
    );
    await expect(call).rejects.toMatchObject({ code: SdkErrorCode.RequestTimeout });
    await vi.waitFor(() => {
      expect(state.cancelled).toEqual(['t']);
    });
  });

  it('fails calls in flight with SdkError ConnectionClosed when the connection closes', async () => {
    const { client } = await connect();
    const call = client.callTool({ name: 'slow', arguments: { ms: 10_000 } });
    await client.close();
    await expect(call).rejects.toMatchObject({ code: SdkErrorCode.ConnectionClosed });
  });

  it('leaves no listener on the caller’s signal (the SDK leaves one per request)', async () => {
    const { client } = await connect();
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    for (let i = 0; i < 3; i++) {
      await client.callTool(
        { name: 'echo', arguments: { text: 'x' } },
        { signal: controller.signal },
      );
    }
    expect(add).toHaveBeenCalledTimes(3);
    expect(remove).toHaveBeenCalledTimes(3);
  });

  it('goes the SDK’s way when asked for what only the SDK does (onprogress)', async () => {
    const { client, sent } = await connect();
    const progress: number[] = [];
    await client.callTool(
      { name: 'progress', arguments: { steps: 2 } },
      {
        onprogress: (event) => progress.push(event.progress),
      },
    );
    expect(progress.length).toBeGreaterThan(0);
    expect(calls(sent).map((m) => ('id' in m ? typeof m.id : undefined))).toEqual(['number']);
  });
});
